/**
 * `@plant-store/admin-api`: the Plant Store sender's admin API described once. One zod schema per route's
 * parameters, query, headers, body and answer (`adminRoutes`), from which the sender validates requests, the
 * OpenAPI document is generated (`buildAdminOpenApi`), and the CLI's client is typed (`createAdminClient`).
 *
 * @example
 * ```ts
 * import { createAdminClient } from "@plant-store/admin-api";
 * const admin = createAdminClient({ baseUrl: "http://127.0.0.1:4001", token: process.env.ADMIN_TOKEN! });
 * const page = await admin.call("listDeliveries", { query: { state: "failed" } });
 * if (page.ok) for (const d of page.value.data) console.log(d.id, d.lastError);
 * ```
 *
 * @module
 */

export { batches } from "./batches.js";
export {
  type AdminCall,
  type AdminClient,
  type AdminClientOptions,
  type AdminResult,
  createAdminClient,
  createReceiverAdminClient,
  createRouteClient,
  DEFAULT_ADMIN_TIMEOUT_MS,
  type RouteClient,
} from "./client.js";
export { MAX_BATCH_BODY_BYTES } from "./defaults.js";
export { BATCH_FRAME_BYTES, type LineEvent, type LineProblem, readEventLines } from "./event-lines.js";
export { buildAdminOpenApi, buildRouteOpenApi, type DocumentHead } from "./openapi.js";
export {
  buildReceiverOpenApi,
  type ReceiverAnswer,
  type ReceiverInput,
  type ReceiverOperationId,
  type ReceiverReply,
  type ReceiverRequest,
  receiverRoutes,
} from "./receiver-routes.js";
export * as receiverSchemas from "./receiver-schemas.js";
export {
  type AdminAnswer,
  type AdminInput,
  type AdminOperationId,
  type AdminReply,
  type AdminRequest,
  type AdminRoute,
  adminRoutes,
  type RouteAnswer,
  type RouteInput,
  type RouteReply,
  type RouteRequest,
  type RouteTable,
  type SuccessAnswer,
} from "./routes.js";
export * as adminSchemas from "./schemas.js";
