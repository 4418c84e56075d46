/**
 * `@plant-store/app-kit`: what the Plant Store apps share — configuration, logging, metrics helpers, process lifecycle.
 *
 * @module
 */
export {
  ConfigError,
  csvList,
  parseConfig,
  SCHEDULE_HELP,
  type Setting,
  scheduleSetting,
  wholeNumber,
} from "./config.js";
export { createLineWriter, type LineValue } from "./line-writer.js";
export { LINGER, lingerAfterRefusal } from "./lingering-close.js";
export { logText, MAX_LOGGED_CHARS } from "./log-text.js";
export { createLineBatcher, createLogger, type FlushableDestination, REDACTED_PATHS } from "./logger.js";
export { createTally, type Tally, type TallyMetric, type TallyOptions } from "./metrics.js";
export { createNodeServer, type NodeServerOptions } from "./node-server.js";
export { refuseHead } from "./refuse-head.js";
export {
  DEFAULT_RETENTION_DAYS,
  type RetentionOptions,
  startRetention,
} from "./retention.js";
export { type RunServerOptions, runServer, type Server } from "./run-server.js";
export { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./server-timeouts.js";
export { signingKeyProblem } from "./signing-keys.js";
export {
  type AddressVerdict,
  type AllowList,
  checkAddress,
  createGuardedFetch,
  type GuardedFetch,
  parseAllowList,
  type Resolver,
  refuseMetadataNetworks,
  resolveTarget,
  systemResolver,
  UNRESOLVED_CODE,
} from "./ssrf.js";
export { type AppStore, openAppStore, type Readiness, readiness, type StoreSetting } from "./store.js";
export {
  appTracer,
  errorType,
  type InSpanOptions,
  inSpan,
  MESSAGING_SYSTEM,
  packageTracer,
  SPAN_ATTRIBUTES,
} from "./tracing.js";
export { startWorker, type Worker } from "./worker/worker.js";
export {
  ATTEMPT_LINE_KEYS,
  DEFAULT_CONCURRENCY,
  type WorkerMetrics,
  type WorkerOptions,
} from "./worker/worker-context.js";
