import type { AdminRoute } from "@plant-store/admin-api";
import type { Catalog } from "@plant-store/spec";
import type { Application, Delivery, Store, Subscription } from "@plant-store/store";
import type { FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { SenderMetrics } from "../metrics.js";
import type { RouteHandlers, TaggedOperation } from "../route-table.js";
import type { AllowList, Resolver } from "../ssrf.js";
import type { senderTracer } from "../tracing.js";
import { type AdminView, type Principals, principalOf, viewOf } from "./principal.js";

/** What the admin API's route handlers work with: resolved once when the API is built. */
export interface AdminContext {
  store: Store;
  catalog: Catalog;
  allow: AllowList;
  resolve: Resolver;
  metrics: SenderMetrics;
  logger: Logger | undefined;
  /** Whether the sender holds ed25519 private keys: without, no subscription may sign v1a. */
  canSignAsymmetric: boolean;
  tracer: ReturnType<typeof senderTracer>;
  /** Each request's principal, recorded by the auth hook. */
  principals: Principals;
  /**
   * The console's URL, which portal links point at (`<console url>#token=…`); `undefined`: the admin API's own
   * `/console/` at the host the operator's request named.
   */
  consoleUrl: string | undefined;
}

/**
 * The view of the store a request may read through: its principal's (a portal's reads take its application id).
 *
 * @example
 * ```ts
 * const found = await requestView(context, request).getSubscription(id);
 * ```
 */
export function requestView(context: AdminContext, request: FastifyRequest): AdminView {
  return viewOf(context.store, principalOf(context.principals, request));
}

/** What each route's `load` finds: the subscription or delivery its path names. */
export interface AdminLoaded {
  getSubscription: Subscription;
  deleteSubscription: Subscription;
  updateSubscription: Subscription;
  disableSubscription: Subscription;
  enableSubscription: Subscription;
  rotateCredential: Subscription;
  recoverSubscription: Subscription;
  getDelivery: Delivery;
  listAttempts: Delivery;
  resendDelivery: Delivery;
  getApplication: Application;
  updateApplication: Application;
  deleteApplication: Application;
  createPortalLink: Application;
  revokePortalLinks: Application;
}

/** The handlers of one resource: every route the table tags with `tag`, and no other. */
export type ResourceHandlers<Tag extends AdminRoute["tag"]> = Pick<
  RouteHandlers<AdminLoaded>,
  TaggedOperation<Tag>
>;
