import {
  ConfigError,
  wholeNumber as int,
  csvList as list,
  parseAllowList,
  parseConfig,
  refuseMetadataNetworks,
  SCHEDULE_HELP,
  scheduleSetting,
  signingKeyProblem,
} from "@plant-store/app-kit";
import {
  createTokenVerifier,
  parsePrivateKey,
  parsePublicKey,
  parseSecret,
  SIGNING_SCHEMES,
  type SigningScheme,
} from "@plant-store/core";
import { z } from "zod";
import { checkForwardUrl } from "./forwarding.js";

/** Validated receiver configuration. */
export interface ReceiverConfig {
  port: number;
  host: string;
  tokens: string[];
  secrets: string[];
  publicKeys: string[];
  db: string;
  adminTokens: string[];
  maxBodyBytes: number;
  toleranceSeconds: number;
  retentionDays: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** An OpenAPI document whose webhooks to serve instead of the built-in contract's. */
  spec?: string | undefined;
  /** Event types to accept (default every webhook of the document). */
  events: string[];
  /** Destinations every accepted event is forwarded to (created or updated by URL at start). */
  forwardTo: string[];
  /** The `--forward-to` destinations' signing secret; generated and stored when absent. */
  forwardSecret: string | null;
  /** `whsk_` ed25519 private keys for destinations that sign v1a (`asymmetric` or `both`). */
  forwardPrivateKeys: string[];
  /** How the `--forward-to` destinations sign; `null` keeps theirs (new ones: `symmetric`). */
  forwardSigning: SigningScheme | null;
  /** Forward retry schedule in ms; `null` = Standard Webhooks'. */
  schedule: number[] | null;
  /** Private networks destinations may be in (cloud metadata and link-local never). */
  allowNetworks: string[];
}

export { ConfigError };

const schema = z.object({
  port: int("--port / PORT", 0, 65535).default(4000),
  host: z.string().min(1).default("127.0.0.1"),
  tokens: list.pipe(
    z
      .array(z.string())
      .min(1, "set --token or PLANT_STORE_TOKEN: at least one accepted bearer token is required"),
  ),
  // The whsec_ prefix is optional, as in the standardwebhooks and svix libraries; parseSecret checks each entry.
  secrets: list.default([]),
  publicKeys: list.default([]),
  db: z.string().min(1).default("./data/receiver.db"),
  adminTokens: list.default([]),
  maxBodyBytes: int("--max-body / PLANT_STORE_MAX_BODY", 64, 64 * 1024 * 1024).default(1024 * 1024),
  toleranceSeconds: int("--tolerance / PLANT_STORE_TOLERANCE", 1, 86_400).default(300),
  retentionDays: int("--retention-days / PLANT_STORE_RETENTION_DAYS", 0, 36_500).default(30),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  spec: z.string().min(1).optional(),
  events: list.default([]),
  forwardTo: list.default([]),
  forwardSecret: z.string().min(1).nullable().default(null),
  forwardPrivateKeys: list.default([]),
  forwardSigning: z
    .enum(SIGNING_SCHEMES, { error: `--forward-signing must be one of ${SIGNING_SCHEMES.join(", ")}` })
    .nullable()
    .default(null),
  schedule: scheduleSetting,
  allowNetworks: list.default([]),
  // Accepted so that existing command lines keep working; every int64 id is accepted anyway.
  lossless: z.boolean().default(false),
});

/** Help text of `plant-store-receiver --help`. */
export const HELP = `plant-store-receiver — receive the Plant Store webhooks (New Plant, and every other webhook of the document); 200 only once stored.

Usage: plant-store-receiver [options]

Options (each also read from the environment variable shown):
  --port <n>            PORT                          listen port (default 4000)
  --host <addr>         HOST                          listen address (default 127.0.0.1)
  --token <list>        PLANT_STORE_TOKEN             accepted bearer tokens or sha256:<hex> hashes, comma-separated (required)
  --secret <list>       PLANT_STORE_WEBHOOK_SECRET    whsec_ secrets (v1); when set, valid signatures are required
  --public-key <list>   PLANT_STORE_WEBHOOK_PUBLIC_KEY whpk_ ed25519 public keys (v1a), several during rotation;
                                                      when set, valid signatures are required
  --db <target>         PLANT_STORE_DB                SQLite path (default ./data/receiver.db), :memory:, or postgres://…
  --admin-token <list>  PLANT_STORE_ADMIN_TOKEN       tokens (or hashes) for GET /events and /events/stream; off without
  --max-body <bytes>    PLANT_STORE_MAX_BODY          body cap (default 1048576)
  --tolerance <s>       PLANT_STORE_TOLERANCE         allowed timestamp skew in seconds (default 300)
  --retention-days <n>  PLANT_STORE_RETENTION_DAYS    days stored events are kept, purged hourly (default 30; 0 = forever)
  --log-level <level>   PLANT_STORE_LOG_LEVEL         fatal|error|warn|info|debug|trace|silent (default info)
  --spec <file>         PLANT_STORE_SPEC              an OpenAPI document (YAML/JSON) whose webhooks to serve (default: built in)
  --events <list>       PLANT_STORE_EVENTS            event types (operationIds) to accept, comma-separated (default: all)
  --forward-to <urls>   PLANT_STORE_FORWARD_TO        hand every accepted event on to these URLs (destinations named after
                                                      them, created or updated at start; more through the admin API)
  --forward-secret <s>  PLANT_STORE_FORWARD_SECRET    whsec_ secret the forwards are signed with (default: generated, stored)
  --forward-signing <scheme> PLANT_STORE_FORWARD_SIGNING how the --forward-to destinations sign: symmetric (v1, default),
                                                      asymmetric (v1a) or both
  --forward-private-key <list> PLANT_STORE_FORWARD_SIGNING_KEY whsk_ ed25519 private keys (several during a rotation)
                                                      for destinations that sign v1a (asymmetric or both)
  --allow-networks <cidrs> PLANT_STORE_ALLOW_NETWORKS private networks destinations may be in, e.g. 10.0.0.0/8,127.0.0.0/8
                                                      (cloud metadata and link-local addresses are always refused)
${SCHEDULE_HELP}
  -h, --help                                          this help
  -v, --version                                       the version

Every id of the contract's int64 range is accepted and stored exactly as sent (ids beyond 2^53 too); the
events keep the bytes received. (--lossless / PLANT_STORE_LOSSLESS, which used to turn that on, is still accepted.)
The older names PLANT_STORE_TOKENS and PLANT_STORE_ADMIN_TOKENS are still read when the new ones are unset.

Examples:
  PLANT_STORE_TOKEN=psk_… PLANT_STORE_WEBHOOK_SECRET=whsec_… plant-store-receiver --port 4000
  PLANT_STORE_TOKEN=psk_… plant-store-receiver --public-key whpk_…   (the sender holds the whsk_ key)
`;

/**
 * Reads flags (which win) and `PLANT_STORE_*` environment variables, and validates them.
 * Throws {@link ConfigError} with every problem and how to fix it; never echoes a token or secret.
 *
 * @example
 * ```ts
 * const config = loadConfig(["--token", "psk_…", "--db", ":memory:"], {});
 * ```
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): ReceiverConfig | "help" | "version" {
  return parseConfig({
    name: "plant-store-receiver",
    argv,
    env,
    schema,
    settings: {
      port: { flag: "port", env: "PORT" },
      host: { flag: "host", env: "HOST" },
      tokens: { flag: "token", env: "PLANT_STORE_TOKEN", aliases: ["PLANT_STORE_TOKENS"] },
      secrets: { flag: "secret", env: "PLANT_STORE_WEBHOOK_SECRET" },
      publicKeys: { flag: "public-key", env: "PLANT_STORE_WEBHOOK_PUBLIC_KEY" },
      db: { flag: "db", env: "PLANT_STORE_DB" },
      adminTokens: {
        flag: "admin-token",
        env: "PLANT_STORE_ADMIN_TOKEN",
        aliases: ["PLANT_STORE_ADMIN_TOKENS"],
      },
      maxBodyBytes: { flag: "max-body", env: "PLANT_STORE_MAX_BODY" },
      toleranceSeconds: { flag: "tolerance", env: "PLANT_STORE_TOLERANCE" },
      retentionDays: { flag: "retention-days", env: "PLANT_STORE_RETENTION_DAYS" },
      logLevel: { flag: "log-level", env: "PLANT_STORE_LOG_LEVEL" },
      spec: { flag: "spec", env: "PLANT_STORE_SPEC" },
      events: { flag: "events", env: "PLANT_STORE_EVENTS" },
      forwardTo: { flag: "forward-to", env: "PLANT_STORE_FORWARD_TO" },
      forwardSecret: { flag: "forward-secret", env: "PLANT_STORE_FORWARD_SECRET" },
      forwardSigning: { flag: "forward-signing", env: "PLANT_STORE_FORWARD_SIGNING" },
      forwardPrivateKeys: { flag: "forward-private-key", env: "PLANT_STORE_FORWARD_SIGNING_KEY" },
      schedule: { flag: "schedule", env: "PLANT_STORE_SCHEDULE" },
      allowNetworks: { flag: "allow-networks", env: "PLANT_STORE_ALLOW_NETWORKS" },
      lossless: { flag: "lossless", env: "PLANT_STORE_LOSSLESS", boolean: true },
    },
    // Tokens and secrets are checked now, with the code that will use them: a damaged one stops the start with a
    // message (which never repeats the value) instead of failing requests later.
    checks: (config) =>
      [
        ["--token / PLANT_STORE_TOKEN", () => createTokenVerifier(config.tokens)],
        ...(config.adminTokens.length > 0
          ? [
              [
                "--admin-token / PLANT_STORE_ADMIN_TOKEN",
                () => createTokenVerifier(config.adminTokens),
              ] as const,
            ]
          : []),
        [
          "--allow-networks / PLANT_STORE_ALLOW_NETWORKS",
          () => refuseMetadataNetworks(parseAllowList(config.allowNetworks)),
        ],
        ...forwardChecks(config),
        ...config.secrets.map(
          (secret, i) =>
            [`--secret / PLANT_STORE_WEBHOOK_SECRET entry ${i + 1}`, () => parseSecret(secret)] as const,
        ),
        ...config.publicKeys.map(
          (key, i) =>
            [
              `--public-key / PLANT_STORE_WEBHOOK_PUBLIC_KEY entry ${i + 1}`,
              () => parsePublicKey(key),
            ] as const,
        ),
      ] as [string, () => unknown][],
  });
}

/** The checks of the forwarding settings: each destination URL, the secret, the private keys and the signing. */
function forwardChecks(config: z.infer<typeof schema>): (readonly [string, () => unknown])[] {
  return [
    ...config.forwardTo.map(
      (url, i) =>
        [`--forward-to / PLANT_STORE_FORWARD_TO entry ${i + 1}`, () => checkForwardUrl(url)] as const,
    ),
    ...(config.forwardSecret === null
      ? []
      : [
          [
            "--forward-secret / PLANT_STORE_FORWARD_SECRET",
            () => parseSecret(config.forwardSecret as string),
          ] as const,
        ]),
    ...config.forwardPrivateKeys.map(
      (key, i) =>
        [
          `--forward-private-key / PLANT_STORE_FORWARD_SIGNING_KEY entry ${i + 1}`,
          () => parsePrivateKey(key),
        ] as const,
    ),
    [
      "--forward-signing / PLANT_STORE_FORWARD_SIGNING",
      () => {
        const problem = signingKeyProblem(
          config.forwardSigning ?? undefined,
          config.forwardPrivateKeys.length > 0,
          "--forward-private-key",
        );
        if (problem !== null) throw new Error(problem);
      },
    ],
  ];
}
