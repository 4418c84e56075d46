import {
  type Catalog,
  type EventPayloads,
  type SafeEventPayloads,
  catalog as specCatalog,
  type WebhookEntry,
} from "@plant-store/spec";
import {
  bearerChallenge,
  createBearerCheck,
  createTokenVerifier,
  type TokenVerifier,
} from "../auth/index.js";
import {
  describe,
  functionOption,
  invalidOption,
  numberOption,
  objectOption,
  stringOption,
} from "../options.js";
import { createVerifier } from "../signing/index.js";
import { createJsonContentTypeCheck } from "./content-type.js";
import type { PipelineContext, Routes, SignatureRules } from "./context.js";
import type { CatalogEvent, DedupStore, Logger, OnEventResult } from "./types.js";

/** Default body cap: far above any New Plant payload, far below what could hurt a server. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

interface CommonOptions {
  /** Accepted bearer tokens (clear or `sha256:<hex>`), or a ready verifier. Required. */
  tokens: readonly string[] | TokenVerifier;
  /** `whsec_` secrets; when given, a valid Standard Webhooks signature (`v1`) is required. */
  secrets?: readonly string[] | undefined;
  /**
   * `whpk_` ed25519 public keys; when given, a valid signature is required, and a `v1a` one from a matching
   * private key is accepted (alone, or besides `secrets`). Several during rotation.
   */
  publicKeys?: readonly string[] | undefined;
  /** Allowed clock skew for `webhook-timestamp`, both ways. Default 300 s. */
  toleranceSeconds?: number | undefined;
  /** Body cap in bytes (413 beyond it). Default 1 MiB. */
  maxBodyBytes?: number | undefined;
  /**
   * The webhooks (events) served: a document's catalog, default `@plant-store/spec`'s. Give one read from a
   * document at run time (`buildCatalog`) to serve it without code; `onEvent`'s types stay the default catalog's.
   */
  catalog?: Catalog | undefined;
  /** Event types (operationIds) of the catalog to accept; default every one. The first is the fallback below. */
  events?: readonly string[] | undefined;
  /**
   * Where events are accepted. Default: each served webhook at its own path (`/plant/webhook`, …). A string:
   * that one path; `null`: any path (a framework routes). A request names its event type in
   * `webhook-event-type`; without it the path's webhook is meant, or the first served one where the path says none.
   */
  path?: string | null | undefined;
  /** `realm` of the `WWW-Authenticate` challenge. Default `plant-store`. */
  realm?: string | undefined;
  /** Dedup on `webhook-id` before `onEvent`; optional when `onEvent` deduplicates itself. */
  dedup?: DedupStore | undefined;
  /** Clock in ms. Default `Date.now`. */
  now?: (() => number) | undefined;
  logger?: Logger | undefined;
}

/**
 * Options of {@link createWebhookHandler}; `mode` picks how int64 values reach `onEvent`: `lossless` (default,
 * every int64 the contract allows, as `bigint`) or `safe` (`number`, refusing values beyond ±(2^53-1) with 422).
 */
export type WebhookHandlerOptions =
  | (CommonOptions & {
      mode?: "lossless" | undefined;
      /** Stores or acts on the event; 200 is answered only after it resolves. Throwing → 503. */
      onEvent: (event: CatalogEvent<EventPayloads>) => OnEventResult | Promise<OnEventResult>;
    })
  | (CommonOptions & {
      mode: "safe";
      onEvent: (event: CatalogEvent<SafeEventPayloads>) => OnEventResult | Promise<OnEventResult>;
    });

/**
 * Checks a handler's options and builds its context: every option read, every secret and key decoded once, here (a
 * bad one throws now, a configuration error, not on every request).
 *
 * @example
 * ```ts
 * const context = pipelineContext({ tokens: ["psk_…"], onEvent: save });
 * ```
 */
export function pipelineContext(options: WebhookHandlerOptions): PipelineContext {
  if (typeof options !== "object" || options === null) {
    throw invalidOption("createWebhookHandler takes an options object: { tokens, onEvent, … }.");
  }
  const maxBodyBytes = numberOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, {
    min: 1,
    integer: true,
    unit: "(bytes)",
  });
  const routes = readRoutes(options.catalog, options.events, options.path);
  const realm = stringOption("realm", options.realm, "plant-store");
  const signatures = readSignatureRules(options, realm);
  const mode = stringOption("mode", options.mode, "lossless", ["safe", "lossless"]) as "safe" | "lossless";
  const checkBearer = createBearerCheck({
    verifier: tokenVerifierOption(options.tokens),
    realm,
    missing: "Missing bearer token. Send 'Authorization: Bearer <ACCESS_TOKEN>'.",
    rejected: "The bearer token is not accepted. Check the token configured for this receiver.",
  });
  if (typeof options.onEvent !== "function") {
    throw invalidOption(
      `onEvent must be a function (event) => … that stores the event (the 200 is sent after it resolves); got ${describe(options.onEvent)}.`,
    );
  }
  return {
    maxBodyBytes,
    routes,
    isJson: createJsonContentTypeCheck(),
    checkBearer,
    signatures,
    mode,
    onEvent: options.onEvent as PipelineContext["onEvent"],
    dedup: objectOption<DedupStore>("dedup", options.dedup, ["has", "add"]),
    logger: objectOption<Logger>("logger", options.logger, ["warn", "error"]),
    inFlight: new Map(),
  };
}

function readRoutes(catalog: unknown, events: unknown, pathOption: unknown): Routes {
  const served = servedEvents(catalog, events);
  const path = checkPath(pathOption);
  return {
    served,
    fallback: served[0] as WebhookEntry,
    byType: new Map(served.map((entry) => [entry.type, entry])),
    byPath: path === undefined ? new Map(served.map((entry) => [entry.path, entry])) : null,
    path,
    where:
      path === undefined ? served.map((entry) => `${entry.method} ${entry.path}`).join(", ") : `POST ${path}`,
  };
}

function readSignatureRules(options: WebhookHandlerOptions, realm: string): SignatureRules {
  if (options.secrets !== undefined && !Array.isArray(options.secrets)) {
    throw invalidOption(
      "secrets must be an array of 'whsec_…' strings (several during rotation); wrap a single secret in [ ].",
    );
  }
  if (options.publicKeys !== undefined && !Array.isArray(options.publicKeys)) {
    throw invalidOption(
      "publicKeys must be an array of 'whpk_…' strings (several during rotation); wrap a single key in [ ].",
    );
  }
  const secrets = options.secrets ?? [];
  const publicKeys = options.publicKeys ?? [];
  return {
    verify: secrets.length > 0 || publicKeys.length > 0 ? createVerifier({ secrets, publicKeys }) : null,
    toleranceSeconds: numberOption("toleranceSeconds", options.toleranceSeconds, 300, {
      min: 0,
      unit: "(seconds)",
    }),
    now: functionOption("now", options.now, Date.now),
    challenge: { "www-authenticate": bearerChallenge({ realm }) },
  };
}

function checkPath(path: unknown): string | null | undefined {
  if (path === undefined || path === null || (typeof path === "string" && path.startsWith("/"))) return path;
  throw invalidOption(
    `path must be a string starting with '/', or null when a framework routes (default: each webhook at its own path); got ${describe(path)}.`,
  );
}

/** The catalog entries served, in the order asked (`events`), or the whole catalog. */
function servedEvents(catalog: unknown, events: unknown): WebhookEntry[] {
  const all = catalog === undefined ? (specCatalog as Catalog) : catalog;
  if (!Array.isArray(all) || all.length === 0) {
    throw invalidOption("catalog must be a non-empty array of webhooks, as buildCatalog(document) returns.");
  }
  if (events === undefined) return [...(all as WebhookEntry[])];
  if (!Array.isArray(events) || events.length === 0) {
    throw invalidOption(`events must be a non-empty array of event types; got ${describe(events)}.`);
  }
  return events.map((type) => {
    const entry = (all as WebhookEntry[]).find((candidate) => candidate.type === type);
    if (!entry) {
      throw invalidOption(
        `events names ${describe(type)}, which the catalog does not hold; it holds ${(all as WebhookEntry[]).map((e) => e.type).join(", ")}.`,
      );
    }
    return entry;
  });
}

function tokenVerifierOption(tokens: unknown): TokenVerifier {
  if (Array.isArray(tokens)) return createTokenVerifier(tokens);
  if (
    typeof tokens === "object" &&
    tokens !== null &&
    typeof (tokens as TokenVerifier).verify === "function"
  ) {
    return tokens as TokenVerifier;
  }
  throw invalidOption(
    `tokens must be an array of accepted bearer tokens (clear or 'sha256:<hex>'), or a TokenVerifier; got ${describe(tokens)}. Wrap a single token in [ ].`,
  );
}
