import pino, { type Logger } from "pino";

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
  return pino(
    {
      level,
      base: { app },
      redact: {
        // Named paths only. A wildcard (`*.token`) makes pino walk every logged object on every line: measured at
        // 1.9 µs of a 2.6 µs line, about 3% of a webhook request. The apps log flat objects with fixed keys, so
        // these paths cover every place a credential could appear in their lines.
        paths: [...REDACTED_PATHS],
        censor: "[redacted]",
      },
    },
    destination ?? createLineBatcher(1),
  );
}

/** A log destination that also answers `flush`, which pino's `logger.flush()` calls. */
export interface FlushableDestination extends pino.DestinationStream {
  flush(callback?: (error?: Error) => void): void;
}

/** What each line batcher still holds is written at exit: one process listener for all of them. */
const pendingAtExit = new Set<() => void>();

/**
 * JSON lines to a file descriptor, written once per event-loop turn: the lines logged during one turn are joined and
 * handed to a synchronous sonic-boom (pino's own stdout destination, which retries EAGAIN) in one write when the
 * turn ends, and at process exit. Under load that is one write syscall for dozens of request lines instead of one
 * each (pino's synchronous default) or a thread-pool round trip each (sonic-boom's asynchronous mode): 2.1 µs of CPU
 * per line against 3.8 µs and 3.6 µs, measured with 20 lines per turn written into a pipe.
 *
 * @example
 * ```ts
 * const logger = pino({ level: "info" }, createLineBatcher(1));
 * logger.info("written when this turn of the event loop ends");
 * ```
 */
export function createLineBatcher(fd: number): FlushableDestination {
  const target = pino.destination({ fd, sync: true });
  let pending = "";
  let scheduled = false;
  const writePending = () => {
    scheduled = false;
    if (pending === "") return;
    const out = pending;
    pending = "";
    target.write(out);
  };
  if (pendingAtExit.size === 0)
    process.once("exit", () => {
      for (const write of pendingAtExit) write();
    });
  pendingAtExit.add(writePending);
  return {
    write(line: string) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(writePending);
      }
    },
    flush(callback) {
      writePending();
      callback?.();
    },
  };
}
