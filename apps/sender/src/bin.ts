#!/usr/bin/env node
import { createRequire } from "node:module";
import pino from "pino";
import { ConfigError, HELP, loadConfig } from "./config.js";
import { createSender } from "./sender.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`plant-store-sender: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (config === "help") return void process.stdout.write(HELP);
  if (config === "version") return void process.stdout.write(`${version}\n`);
  const logger = pino(
    {
      level: config.logLevel,
      base: { app: "plant-store-sender" },
      redact: { paths: ["token", "secret", "authorization", "*.token", "*.secret"], censor: "[redacted]" },
    },
    pino.destination({ fd: 1, sync: false }),
  );
  let sender: Awaited<ReturnType<typeof createSender>>;
  try {
    sender = await createSender({
      adminTokens: config.adminTokens,
      store: config.db,
      ...(config.encryptionKey && { encryptionKey: config.encryptionKey }),
      allowNetworks: config.allowNetworks,
      concurrency: config.concurrency,
      perSubscription: config.perSubscription,
      timeoutMs: config.timeoutMs,
      ...(config.schedule && { schedule: config.schedule }),
      logger,
    });
  } catch (error) {
    process.stderr.write(`plant-store-sender: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  let url: string;
  try {
    url = await sender.listen(config.port, config.host);
  } catch (error) {
    process.stderr.write(
      `plant-store-sender: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`,
    );
    await sender.close();
    process.exit(1);
  }
  logger.info({ url, store: sender.store.backend, version }, "listening");
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight attempts");
    sender.close().then(
      () => {
        logger.info("stopped");
        logger.flush();
      },
      (error: Error) => {
        logger.error({ error: error.message }, "shutdown failed");
        logger.flush();
        process.exitCode = 1;
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: Error) => {
  process.stderr.write(`plant-store-sender: ${error.message}\n`);
  process.exit(1);
});
