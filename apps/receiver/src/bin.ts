#!/usr/bin/env node
import { createRequire } from "node:module";
import { ConfigError, HELP, loadConfig } from "./config.js";
import { createLogger } from "./logger.js";
import { createReceiver } from "./receiver.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`plant-store-receiver: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (config === "help") {
    process.stdout.write(HELP);
    return;
  }
  if (config === "version") {
    process.stdout.write(`${version}\n`);
    return;
  }
  const logger = createLogger(config.logLevel);
  let receiver: Awaited<ReturnType<typeof createReceiver>>;
  try {
    receiver = await createReceiver({
      tokens: config.tokens,
      secrets: config.secrets,
      store: config.db,
      adminTokens: config.adminTokens,
      maxBodyBytes: config.maxBodyBytes,
      toleranceSeconds: config.toleranceSeconds,
      lossless: config.lossless,
      logger,
    });
  } catch (error) {
    process.stderr.write(`plant-store-receiver: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  let url: string;
  try {
    url = await receiver.listen(config.port, config.host);
  } catch (error) {
    process.stderr.write(
      `plant-store-receiver: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`,
    );
    await receiver.close();
    process.exit(1);
  }
  logger.info(
    {
      url,
      webhook: `${url}/plant/webhook`,
      store: receiver.store.backend,
      signatures: config.secrets.length > 0 ? "required" : "off",
      admin: config.adminTokens.length > 0 ? "on" : "off",
      version,
    },
    "listening",
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    receiver.close().then(
      () => {
        logger.info("stopped");
        logger.flush();
        process.exitCode = 0;
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
  process.stderr.write(`plant-store-receiver: ${error.message}\n`);
  process.exit(1);
});
