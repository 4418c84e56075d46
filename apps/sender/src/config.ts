import {
  ConfigError,
  DEFAULT_CONCURRENCY,
  wholeNumber as int,
  csvList as list,
  parseAllowList,
  parseConfig,
  SCHEDULE_HELP,
  scheduleSetting,
} from "@plant-store/app-kit";
import { createTokenVerifier, DEFAULT_TIMEOUT_MS, parsePrivateKey } from "@plant-store/core";
import { parseEncryptionKey } from "@plant-store/store";
import { z } from "zod";

/** Deliveries in flight in all, unless configured; also the most connections per pinned endpoint Agent. */
/** Deliveries in flight in all, by default: the shared worker's. */
export { DEFAULT_CONCURRENCY };

/** Validated sender configuration. */
export interface SenderConfig {
  port: number;
  host: string;
  db: string;
  adminTokens: string[];
  concurrency: number;
  perSubscription: number;
  timeoutMs: number;
  schedule: number[] | null;
  allowNetworks: string[];
  encryptionKey: string | null;
  previousEncryptionKeys: string[];
  privateKeys: string[];
  /** An OpenAPI document whose webhooks to publish instead of the built-in contract's. */
  spec?: string | undefined;
  retentionDays: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
}

export { ConfigError };

const schema = z.object({
  port: int("--port / PORT", 0, 65535).default(4001),
  host: z.string().min(1).default("127.0.0.1"),
  db: z.string().min(1).default("./data/sender.db"),
  adminTokens: list.pipe(
    z.array(z.string()).min(1, "set --admin-token or PLANT_STORE_ADMIN_TOKEN: the admin API needs a token"),
  ),
  concurrency: int("--concurrency / PLANT_STORE_CONCURRENCY", 1, 10_000).default(DEFAULT_CONCURRENCY),
  perSubscription: int("--per-subscription / PLANT_STORE_PER_SUBSCRIPTION", 1, 10_000).default(16),
  timeoutMs: int("--timeout / PLANT_STORE_TIMEOUT_MS", 100, 300_000).default(DEFAULT_TIMEOUT_MS),
  schedule: scheduleSetting,
  allowNetworks: list.default([]),
  encryptionKey: z.string().min(1).nullable().default(null),
  previousEncryptionKeys: list.default([]),
  privateKeys: list.default([]),
  spec: z.string().min(1).optional(),
  retentionDays: int("--retention-days / PLANT_STORE_RETENTION_DAYS", 0, 36_500).default(30),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** Help text of `plant-store-sender --help`. */
export const HELP = `plant-store-sender — deliver the Plant Store "New Plant" webhook to every subscriber, durably.

Usage: plant-store-sender [options]

Options (each also read from the environment variable shown):
  --port <n>               PORT                           admin API port (default 4001)
  --host <addr>            HOST                           admin API address (default 127.0.0.1)
  --db <target>            PLANT_STORE_DB                 SQLite path (default ./data/sender.db), :memory:, or postgres://…
  --admin-token <list>     PLANT_STORE_ADMIN_TOKEN        admin API bearer tokens or sha256:<hex> hashes (required)
  --concurrency <n>        PLANT_STORE_CONCURRENCY        deliveries in flight, in all (default ${DEFAULT_CONCURRENCY})
  --per-subscription <n>   PLANT_STORE_PER_SUBSCRIPTION   deliveries in flight per subscriber (default 16)
  --timeout <ms>           PLANT_STORE_TIMEOUT_MS         per attempt (default ${DEFAULT_TIMEOUT_MS})
${SCHEDULE_HELP}
  --allow-networks <cidrs> PLANT_STORE_ALLOW_NETWORKS     networks allowed despite the SSRF guard, e.g. 127.0.0.0/8,::1/128
  --encryption-key <key>   PLANT_STORE_ENCRYPTION_KEY     32 bytes (base64 or hex): tokens and secrets encrypted at rest
  --previous-encryption-keys <keys>
                           PLANT_STORE_PREVIOUS_ENCRYPTION_KEYS
                                                          older keys, comma-separated, still read after a key rotation
  --private-key <list>     PLANT_STORE_SIGNING_KEY        whsk_ ed25519 private keys (comma-separated; several during a
                                                          rotation) for subscriptions that sign v1a (asymmetric or both)
  --spec <file>            PLANT_STORE_SPEC               an OpenAPI document (YAML/JSON) whose webhooks to publish (default: built in)
  --retention-days <n>     PLANT_STORE_RETENTION_DAYS     days finished messages, deliveries and attempts are kept (default 30;
                                                          0 = forever); pending and retried ones are always kept
  --log-level <level>      PLANT_STORE_LOG_LEVEL          fatal|error|warn|info|debug|trace|silent (default info)
  -h, --help                                              this help
  -v, --version                                           the version

PLANT_STORE_ADMIN_TOKENS, the older name, is still read when PLANT_STORE_ADMIN_TOKEN is unset.
The store refuses to start when credentials in it were encrypted with a key that is not configured.

Examples:
  openssl rand -base64 32 > sender.key   # once; keep it (and back it up) outside the database
  PLANT_STORE_ADMIN_TOKEN=psk_… PLANT_STORE_ENCRYPTION_KEY="$(cat sender.key)" plant-store-sender
  plant-store-sender --db :memory: --admin-token psk_… --allow-networks 127.0.0.0/8   # local development
`;

/**
 * Reads flags (which win) and `PLANT_STORE_*` environment variables and validates them; throws
 * {@link ConfigError} listing every problem, never echoing a token or key.
 *
 * @example
 * ```ts
 * const config = loadConfig(["--admin-token", "psk_…", "--db", ":memory:"], {});
 * ```
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): SenderConfig | "help" | "version" {
  return parseConfig({
    name: "plant-store-sender",
    argv,
    env,
    schema,
    settings: {
      port: { flag: "port", env: "PORT" },
      host: { flag: "host", env: "HOST" },
      db: { flag: "db", env: "PLANT_STORE_DB" },
      adminTokens: {
        flag: "admin-token",
        env: "PLANT_STORE_ADMIN_TOKEN",
        aliases: ["PLANT_STORE_ADMIN_TOKENS"],
      },
      concurrency: { flag: "concurrency", env: "PLANT_STORE_CONCURRENCY" },
      perSubscription: { flag: "per-subscription", env: "PLANT_STORE_PER_SUBSCRIPTION" },
      timeoutMs: { flag: "timeout", env: "PLANT_STORE_TIMEOUT_MS" },
      schedule: { flag: "schedule", env: "PLANT_STORE_SCHEDULE" },
      allowNetworks: { flag: "allow-networks", env: "PLANT_STORE_ALLOW_NETWORKS" },
      encryptionKey: { flag: "encryption-key", env: "PLANT_STORE_ENCRYPTION_KEY" },
      previousEncryptionKeys: {
        flag: "previous-encryption-keys",
        env: "PLANT_STORE_PREVIOUS_ENCRYPTION_KEYS",
      },
      privateKeys: { flag: "private-key", env: "PLANT_STORE_SIGNING_KEY" },
      spec: { flag: "spec", env: "PLANT_STORE_SPEC" },
      retentionDays: { flag: "retention-days", env: "PLANT_STORE_RETENTION_DAYS" },
      logLevel: { flag: "log-level", env: "PLANT_STORE_LOG_LEVEL" },
    },
    checks: (config) =>
      [
        ["--admin-token / PLANT_STORE_ADMIN_TOKEN", () => createTokenVerifier(config.adminTokens)],
        ["--allow-networks / PLANT_STORE_ALLOW_NETWORKS", () => parseAllowList(config.allowNetworks)],
        ...config.privateKeys.map(
          (key, i) =>
            [`--private-key / PLANT_STORE_SIGNING_KEY entry ${i + 1}`, () => parsePrivateKey(key)] as const,
        ),
        ...(config.encryptionKey === null
          ? []
          : [
              [
                "--encryption-key / PLANT_STORE_ENCRYPTION_KEY",
                () => parseEncryptionKey(config.encryptionKey as string),
              ] as const,
            ]),
        [
          "--previous-encryption-keys / PLANT_STORE_PREVIOUS_ENCRYPTION_KEYS",
          () => {
            if (config.previousEncryptionKeys.length > 0 && config.encryptionKey === null)
              throw new Error("previous keys need a current key: set --encryption-key too.");
            config.previousEncryptionKeys.map(parseEncryptionKey);
          },
        ],
      ] as [string, () => unknown][],
  });
}
