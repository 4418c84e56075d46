import pino, { type Logger } from "pino";
import { createLineBatcher } from "./line-batcher.js";

export { createLineBatcher, type FlushableDestination, type LineBatcherOptions } from "./line-batcher.js";

/**
 * Where a credential could sit in a log line; each is replaced by `[redacted]`.
 *
 * @example
 * ```ts
 * REDACTED_PATHS.includes("headers.authorization"); // true
 * ```
 */
export const REDACTED_PATHS: readonly string[] = [
  "authorization",
  "token",
  "tokens",
  "secret",
  "secrets",
  "adminToken",
  "adminTokens",
  "encryptionKey",
  "privateKeys",
  "forwardPrivateKeys",
  "forwardSecret",
  "headers.authorization",
  "req.headers.authorization",
  "request.headers.authorization",
  "subscription.token",
  "subscription.secret",
];

/**
 * The apps' JSON-lines logger (pino) on stdout. Credentials are redacted as a second line of defence: the apps
 * never hand them to the logger in the first place.
 *
 * @example
 * ```ts
 * const logger = createLogger("plant-store-receiver", "info");
 * logger.info({ webhookId: "msg_1", status: 200 }, "webhook");
 * ```
 */
export function createLogger(app: string, level: string, destination?: pino.DestinationStream): Logger {
  const logger: Logger = pino(
    {
      level,
      base: { app },
      redact: {
        // Named paths only: a wildcard (`*.token`) makes pino walk every logged object on every line. The apps log
        // flat objects with fixed keys, so these paths cover every place a credential could appear in their lines.
        paths: [...REDACTED_PATHS],
        censor: "[redacted]",
      },
    },
    destination ??
      createLineBatcher(1, {
        onDropped: (lines) =>
          logger.warn({ droppedLines: lines }, "log lines lost: stdout refused them (its reader is gone)"),
      }),
  );
  return logger;
}
