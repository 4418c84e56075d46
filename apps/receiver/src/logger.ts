import pino, { type Logger } from "pino";

/**
 * The receiver's JSON-lines logger (pino) on stdout. Credentials are redacted as a second line of defence: the
 * receiver never passes them to the logger in the first place.
 *
 * @example
 * ```ts
 * const logger = createLogger("info");
 * logger.info({ webhookId: "msg_1", status: 200 }, "webhook");
 * ```
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { app: "plant-store-receiver" },
      redact: {
        paths: [
          "authorization",
          "token",
          "tokens",
          "secret",
          "secrets",
          "headers.authorization",
          "*.authorization",
        ],
        censor: "[redacted]",
      },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
