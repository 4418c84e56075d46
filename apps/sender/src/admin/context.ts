import type { AdminRoute } from "@plant-store/admin-api";
import type { Catalog } from "@plant-store/spec";
import type { Delivery, Store, Subscription } from "@plant-store/store";
import type { Logger } from "pino";
import type { SenderMetrics } from "../metrics.js";
import type { RouteHandlers, TaggedOperation } from "../route-table.js";
import type { AllowList, Resolver } from "../ssrf.js";
import type { senderTracer } from "../tracing.js";

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
}

/** The handlers of one resource: every route the table tags with `tag`, and no other. */
export type ResourceHandlers<Tag extends AdminRoute["tag"]> = Pick<
  RouteHandlers<AdminLoaded>,
  TaggedOperation<Tag>
>;
