import type { Catalog } from "@plant-store/spec";
import { catalog as specCatalog } from "@plant-store/spec";
import type { Store } from "@plant-store/store";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { applicationHandlers } from "./admin/applications.js";
import { requireAdminToken } from "./admin/auth-hook.js";
import { installBodyParsers } from "./admin/body-parsers.js";
import { mountConsole, senderConsole } from "./admin/console-mount.js";
import type { AdminContext, AdminLoaded } from "./admin/context.js";
import { deliveryHandlers } from "./admin/deliveries.js";
import { adminErrorHandler } from "./admin/error-mapping.js";
import { eventHandlers } from "./admin/events.js";
import { installMethodNotAllowed } from "./admin/method-not-allowed.js";
import { operationHandlers } from "./admin/operations.js";
import { refuseRepeatedQuery } from "./admin/repeated-query.js";
import { ADMIN_BODY_LIMIT, createAdminServer } from "./admin/server.js";
import { subscriptionHandlers } from "./admin/subscriptions.js";
import type { SenderMetrics } from "./metrics.js";
import { registerRoutes } from "./route-table.js";
import type { AllowList, Resolver } from "./ssrf.js";
import { senderTracer } from "./tracing.js";

/** Options of {@link createAdminApi}. */
export interface AdminApiOptions {
  store: Store;
  adminTokens: readonly string[];
  allow: AllowList;
  resolve: Resolver;
  metrics: SenderMetrics;
  logger?: Logger;
  /** Whether the sender holds ed25519 private keys (`--private-key`): without, no subscription may sign v1a. */
  canSignAsymmetric?: boolean;
  /** The webhooks it publishes (a catalog read from `--spec`); default `@plant-store/spec`'s. */
  catalog?: Catalog;
  /** Where portal links point (`<consoleUrl>#token=…`); default this API's `/console/` at the requested host. */
  consoleUrl?: string;
  /** Body cap of admin requests. Default `ADMIN_BODY_LIMIT` (64 KiB). */
  bodyLimit?: number;
  /** Time allowed to receive a request's headers (slowloris guard). Default app-kit's `HEADERS_TIMEOUT_MS`. */
  headersTimeoutMs?: number;
  /** Time allowed for a whole request, body included. Default app-kit's `REQUEST_TIMEOUT_MS`. */
  requestTimeoutMs?: number;
}

/**
 * The admin API (Fastify): subscriptions, publishing, messages, deliveries and their attempts, resend and
 * recover, plus `/healthz`, `/readyz`, `/metrics` and `/openapi.json`. Everything but those four needs an admin
 * bearer token; every error is `{ error, message }`, Fastify's own (bad JSON, body too large, 404) included.
 *
 * @example
 * ```ts
 * const app = await createAdminApi({ store, adminTokens, allow, resolve: systemResolver, metrics });
 * await app.listen({ port: 4001, host: "127.0.0.1" });
 * ```
 */
export async function createAdminApi(options: AdminApiOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimit ?? ADMIN_BODY_LIMIT;
  const app = createAdminServer({
    bodyLimit,
    headersTimeoutMs: options.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  installBodyParsers(app);
  app.setErrorHandler(adminErrorHandler({ bodyLimit, logger: options.logger }));
  installMethodNotAllowed(app);
  refuseRepeatedQuery(app);
  const consoleServer = senderConsole();
  const context = adminContext(options);
  requireAdminToken(app, {
    adminTokens: options.adminTokens,
    consoleServer,
    store: options.store,
    principals: context.principals,
  });
  mountConsole(app, consoleServer);
  // Every route of the admin API's table, served: the schemas there validate each request before these run.
  registerRoutes<AdminLoaded>(app, {
    ...operationHandlers(context),
    ...applicationHandlers(context),
    ...subscriptionHandlers(context),
    ...eventHandlers(context),
    ...deliveryHandlers(context),
  });
  await app.ready();
  return app;
}

function adminContext(options: AdminApiOptions): AdminContext {
  return {
    store: options.store,
    catalog: options.catalog ?? specCatalog,
    allow: options.allow,
    resolve: options.resolve,
    metrics: options.metrics,
    logger: options.logger,
    canSignAsymmetric: options.canSignAsymmetric ?? false,
    tracer: senderTracer(),
    principals: new WeakMap(),
    consoleUrl: options.consoleUrl,
  };
}
