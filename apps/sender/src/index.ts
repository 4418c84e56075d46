/**
 * `@plant-store/sender`: durable delivery of the New Plant webhook to every subscriber.
 *
 * @module
 */

export { startWorker, type Worker, type WorkerOptions } from "@plant-store/app-kit";
export { type AdminApiOptions, createAdminApi } from "./admin.js";
export { ConfigError, HELP, loadConfig, type SenderConfig } from "./config.js";
export { createMetrics, type SenderMetrics } from "./metrics.js";
export { adminOpenApi } from "./openapi.js";
export { createSender, type Sender, type SenderOptions } from "./sender.js";
export {
  type AddressVerdict,
  type AllowList,
  checkAddress,
  createGuardedFetch,
  type GuardedFetch,
  parseAllowList,
  type Resolver,
  resolveTarget,
  systemResolver,
} from "./ssrf.js";
