import pino, { type Logger } from "pino";

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
  return pino(
    {
      level,
      base: { app },
      redact: {
        paths: [
          "authorization",
          "token",
          "tokens",
          "secret",
          "secrets",
          "*.authorization",
          "*.token",
          "*.secret",
        ],
        censor: "[redacted]",
      },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
