#!/usr/bin/env node
import { createRequire } from "node:module";
import { createLogger, runServer } from "@plant-store/app-kit";
import { loadCatalog } from "@plant-store/spec/load";
import { StoreConfigError } from "@plant-store/store";
import { HELP, loadConfig } from "./config.js";
import { createSender } from "./sender.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

await runServer({
  name: "plant-store-sender",
  version,
  help: HELP,
  config: () => loadConfig(process.argv.slice(2), process.env),
  logger: (config) => createLogger("plant-store-sender", config.logLevel),
  start: async (config, logger) =>
    createSender({
      adminTokens: config.adminTokens,
      store: config.db,
      ...(config.encryptionKey && { encryptionKey: config.encryptionKey }),
      previousEncryptionKeys: config.previousEncryptionKeys,
      allowNetworks: config.allowNetworks,
      concurrency: config.concurrency,
      perSubscription: config.perSubscription,
      timeoutMs: config.timeoutMs,
      ...(config.schedule && { schedule: config.schedule }),
      ...(config.privateKeys.length > 0 && { privateKeys: config.privateKeys }),
      ...(config.spec !== undefined && { catalog: await loadCatalog(config.spec) }),
      retentionMs: config.retentionDays * 86_400_000,
      logger,
    }),
  // A database path that cannot be one (a directory, a file where a directory must be) is a usage error, exit 2;
  // a missing encryption key for stored credentials is not (exit 1).
  usageError: (error) => error instanceof StoreConfigError && error.code === "invalid_path",
  describe: (sender) => ({ store: sender.store.backend }),
  // In-flight attempts may run for up to --timeout before the outbox is closed.
  shutdownTimeoutMs: (config) => Math.max(20_000, config.timeoutMs + 10_000),
});
