import type { Logger } from "pino";
import { ConfigError } from "./config.js";

/** What a server app hands {@link runServer}: something that listens and closes gracefully. */
export interface Server {
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/** Options of {@link runServer}. */
export interface RunServerOptions<C, S extends Server> {
  name: string;
  version: string;
  help: string;
  config: () => C | "help" | "version";
  logger: (config: C) => Logger;
  start: (config: C, logger: Logger) => Promise<S>;
  /** Extra fields for the "listening" line. */
  describe?: (server: S, config: C) => Record<string, unknown>;
  /**
   * How long a graceful shutdown may take before the process exits anyway (code 1, with an error line); default
   * 20 s, under the 30 s a container orchestrator usually waits before SIGKILL. Work cut short is not lost: a
   * webhook that got no answer is retried by its sender, a delivery's lease expires and it is claimed again.
   */
  shutdownTimeoutMs?: (config: C) => number;
  /** Start failures that are the configuration's fault (exit 2, like a bad flag); the rest exit 1. */
  usageError?: (error: unknown) => boolean;
}

/**
 * The process lifecycle shared by the apps' bins: parse the configuration (exit 2 with the message on a
 * {@link ConfigError}), answer `--help`/`--version`, start (exit 1 with the reason when that fails, 2 when it is a
 * `usageError`: a path that cannot be a database), log
 * "listening", and on SIGTERM/SIGINT close gracefully (exit 0) within a deadline (exit 1 past it); a second signal
 * exits at once.
 *
 * @example
 * ```ts
 * await runServer({
 *   name: "plant-store-receiver", version, help: HELP,
 *   config: () => loadConfig(process.argv.slice(2), process.env),
 *   logger: (config) => createLogger("plant-store-receiver", config.logLevel),
 *   start: (config, logger) => createReceiver({ … }),
 * });
 * ```
 */
export async function runServer<C extends { port: number; host: string }, S extends Server>(
  options: RunServerOptions<C, S>,
): Promise<void> {
  const config = readConfig(options);
  if (config === "done") return;
  const logger = options.logger(config);
  let server: S;
  try {
    server = await options.start(config, logger);
  } catch (error) {
    const usage = error instanceof ConfigError || options.usageError?.(error) === true;
    return fail(options.name, `cannot start: ${(error as Error).message}`, usage ? 2 : 1);
  }
  let url: string;
  try {
    url = await server.listen(config.port, config.host);
  } catch (error) {
    await server.close();
    return fail(
      options.name,
      `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`,
      1,
    );
  }
  logger.info({ url, ...options.describe?.(server, config), version: options.version }, "listening");
  const stop = createStop(server, logger, options.shutdownTimeoutMs?.(config) ?? 20_000);
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

function fail(name: string, message: string, code: number): never {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(code);
}

/** The configuration to run with, or "done" once `--help` or `--version` was answered. */
function readConfig<C>(
  options: Pick<RunServerOptions<C, Server>, "name" | "version" | "help" | "config">,
): C | "done" {
  let config: C | "help" | "version";
  try {
    config = options.config();
  } catch (error) {
    if (error instanceof ConfigError) return fail(options.name, error.message, 2);
    throw error;
  }
  if (config === "help") {
    process.stdout.write(options.help);
    return "done";
  }
  if (config === "version") {
    process.stdout.write(`${options.version}\n`);
    return "done";
  }
  return config;
}

/** The signal handler: the first signal closes gracefully within `deadlineMs`, a second one exits at once. */
function createStop(server: Server, logger: Logger, deadlineMs: number): (signal: string) => void {
  let stopping = false;
  return (signal) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      logger.flush();
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight work");
    const deadline = setTimeout(() => {
      logger.error(
        { signal, deadlineMs },
        "shutdown did not finish in time: exiting now (unanswered webhooks are retried by their senders, unfinished deliveries when their leases expire)",
      );
      logger.flush();
      process.exit(1);
    }, deadlineMs).unref();
    server.close().then(
      () => {
        clearTimeout(deadline);
        logger.info("stopped");
        logger.flush();
      },
      (error: Error) => {
        clearTimeout(deadline);
        logger.error({ error: error.message }, "shutdown failed");
        logger.flush();
        process.exitCode = 1;
      },
    );
  };
}
