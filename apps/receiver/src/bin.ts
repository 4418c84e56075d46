#!/usr/bin/env node
import { createRequire } from "node:module";
import { createLogger, runServer } from "@plant-store/app-kit";
import { loadCatalog } from "@plant-store/spec/load";
import { StoreConfigError } from "@plant-store/store";
import { HELP, loadConfig } from "./config.js";
import { createReceiver } from "./receiver.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

await runServer({
  name: "plant-store-receiver",
  version,
  help: HELP,
  config: () => loadConfig(process.argv.slice(2), process.env),
  logger: (config) => createLogger("plant-store-receiver", config.logLevel),
  start: async (config, logger) =>
    createReceiver({
      tokens: config.tokens,
      ...(config.spec !== undefined && { catalog: await loadCatalog(config.spec) }),
      ...(config.events.length > 0 && { events: config.events }),
      secrets: config.secrets,
      publicKeys: config.publicKeys,
      store: config.db,
      adminTokens: config.adminTokens,
      maxBodyBytes: config.maxBodyBytes,
      toleranceSeconds: config.toleranceSeconds,
      retentionMs: config.retentionDays * 86_400_000,
      forwardTo: config.forwardTo,
      ...(config.forwardSecret !== null && { forwardSecret: config.forwardSecret }),
      ...(config.forwardSigning !== null && { forwardSigning: config.forwardSigning }),
      ...(config.forwardPrivateKeys.length > 0 && { forwardPrivateKeys: config.forwardPrivateKeys }),
      ...(config.schedule !== null && { schedule: config.schedule }),
      allowNetworks: config.allowNetworks,
      logger,
    }),
  // A database path that cannot be one (a directory, a file where a directory must be) is a usage error, exit 2;
  // a missing encryption key for stored credentials is not (exit 1).
  usageError: (error) => error instanceof StoreConfigError && error.code === "invalid_path",
  describe: (receiver, config) => ({
    webhooks: receiver.events.map((entry) => `${entry.type} ${entry.method} ${entry.path}`).join(", "),
    store: receiver.store.backend,
    signatures: config.secrets.length + config.publicKeys.length > 0 ? "required" : "off",
    admin: config.adminTokens.length > 0 ? "on" : "off",
    forwardTo: config.forwardTo.length,
  }),
});
