/**
 * `@plant-store/receiver`: the New Plant webhook receiver — a 200 means the event is committed.
 *
 * @module
 */
export { type AdminApi, createAdminApi } from "./admin.js";
export { ConfigError, HELP, loadConfig, type ReceiverConfig } from "./config.js";
export { createMetrics, type ReceiverMetrics } from "./metrics.js";
export { createReceiver, type Receiver, type ReceiverOptions } from "./receiver.js";
