import {
  type Catalog,
  EVENT_TYPE_HEADER,
  type EventPayloads,
  type SafeEventPayloads,
  catalog as specCatalog,
  WEBHOOK_HEADERS,
  type WebhookEntry,
} from "@plant-store/spec";
import {
  bearerChallenge,
  createBearerCheckNow,
  createTokenVerifier,
  type TokenVerifier,
} from "../auth/index.js";
import { parseEvent } from "../events/index.js";
import {
  describe,
  functionOption,
  invalidOption,
  numberOption,
  objectOption,
  stringOption,
} from "../options.js";
import { createVerifierNow } from "../signing/index.js";
import { parseTimestamp } from "../signing/message-parts.js";
import { errorResponse, okResponse } from "./responses.js";
import type {
  CatalogEvent,
  DedupStore,
  HeaderLookup,
  Logger,
  OnEventResult,
  ReceivedEvent,
  WebhookRequest,
  WebhookResponse,
} from "./types.js";

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

/** The receive pipeline: `preflight` before the body is read, `handle` with it. Never throws. */
export interface WebhookHandler {
  readonly maxBodyBytes: number;
  /** The webhooks served, in order (the first is the fallback when a request names none). */
  readonly events: readonly WebhookEntry[];
  /** Checks path, method, content type and declared length; a response to send now, or null to read the body. */
  preflight(request: Omit<WebhookRequest, "body">): WebhookResponse | null;
  /** Runs the whole pipeline over a fully read body. */
  handle(request: WebhookRequest): Promise<WebhookResponse>;
  /** The response for a body that grew past the cap while being read. */
  tooLarge(): WebhookResponse;
}

const MAX_ID_LENGTH = 256;

/**
 * Builds the receive pipeline of the New Plant webhook, written once over plain data:
 * path/method → content type → size cap → bearer → signature + timestamp → JSON → schema → dedup → `onEvent` → 200.
 * Every failure is a `{ error, message }` response of the contract; nothing throws, nothing answers 5xx but 503.
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({
 *   tokens: [process.env.PLANT_STORE_TOKEN!],
 *   secrets: [process.env.PLANT_STORE_WEBHOOK_SECRET!],
 *   onEvent: async (event) => { await db.insert(event.payload); },
 * });
 * const res = await handler.handle({ method: "POST", path: "/plant/webhook", headers: (n) => h[n], body });
 * ```
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  if (typeof options !== "object" || options === null) {
    throw invalidOption("createWebhookHandler takes an options object: { tokens, onEvent, … }.");
  }
  const maxBodyBytes = numberOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, {
    min: 1,
    integer: true,
    unit: "(bytes)",
  });
  const served = servedEvents(options.catalog, options.events);
  const fallback = served[0] as WebhookEntry;
  const byType = new Map(served.map((entry) => [entry.type, entry]));
  const path = checkPath(options.path);
  // path → webhook; null: any path, where only the header (or the fallback) says which event it is.
  const byPath = path === undefined ? new Map(served.map((entry) => [entry.path, entry])) : null;
  const where =
    path === undefined ? served.map((entry) => `${entry.method} ${entry.path}`).join(", ") : `POST ${path}`;
  const realm = stringOption("realm", options.realm, "plant-store");
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
  // Secrets and keys are decoded once, here: a bad one throws now (a configuration error), not on every request.
  const verify =
    secrets.length > 0 || publicKeys.length > 0 ? createVerifierNow({ secrets, publicKeys }) : null;
  const toleranceSeconds = numberOption("toleranceSeconds", options.toleranceSeconds, 300, {
    min: 0,
    unit: "(seconds)",
  });
  const now = functionOption("now", options.now, Date.now);
  const mode = stringOption("mode", options.mode, "lossless", ["safe", "lossless"]);
  const tokens = tokenVerifierOption(options.tokens);
  if (typeof options.onEvent !== "function") {
    throw invalidOption(
      `onEvent must be a function (event) => … that stores the event (the 200 is sent after it resolves); got ${describe(options.onEvent)}.`,
    );
  }
  const onEvent = options.onEvent as (event: ReceivedEvent) => OnEventResult | Promise<OnEventResult>;
  const dedup = objectOption<DedupStore>("dedup", options.dedup, ["has", "add"]);
  const logger = objectOption<Logger>("logger", options.logger, ["warn", "error"]);
  // Every 401 carries a challenge (RFC 9110 §15.5.2), also when the token passed and the signature did not.
  const signatureChallenge = { "www-authenticate": bearerChallenge({ realm }) };
  const checkBearer = createBearerCheckNow({
    verifier: tokens,
    realm,
    missing: "Missing bearer token. Send 'Authorization: Bearer <ACCESS_TOKEN>'.",
    rejected: "The bearer token is not accepted. Check the token configured for this receiver.",
  });
  // webhook-ids whose dedup check → onEvent → add is running, each with the slot of the request running it (its
  // `stored` promise made only once another request waits).
  const inFlight = new Map<string, InFlight>();

  function preflight(request: Omit<WebhookRequest, "body">): WebhookResponse | null {
    const entry = byPath
      ? byPath.get(request.path)
      : path === null || request.path === path
        ? fallback
        : undefined;
    if (entry === undefined) {
      return errorResponse(
        404,
        `Nothing is served at ${truncate(request.path, 100)}. Send webhooks to ${where}.`,
      );
    }
    if (request.method !== entry.method && request.method.toUpperCase() !== entry.method) {
      return errorResponse(
        405,
        `${truncate(request.method, 20)} is not allowed here. Send the webhook with ${entry.method}.`,
        { allow: entry.method },
      );
    }
    const contentType = request.headers("content-type");
    if (!isJsonContentType(contentType)) {
      return errorResponse(
        415,
        contentType
          ? `Content type '${truncate(contentType, 100)}' is not accepted. Send 'Content-Type: application/json' (UTF-8).`
          : "The request has no Content-Type. Send 'Content-Type: application/json'.",
      );
    }
    const encoding = request.headers("content-encoding");
    if (encoding && encoding.trim().toLowerCase() !== "identity") {
      return errorResponse(
        415,
        `Content-Encoding '${truncate(encoding, 50)}' is not accepted. Send the JSON body uncompressed.`,
        { "accept-encoding": "identity" },
      );
    }
    const length = request.headers("content-length");
    // Number() first: the digits check runs only for a length that would be refused.
    if (length && Number(length) > maxBodyBytes && /^\d+$/.test(length)) return tooLarge();
    return null;
  }

  function tooLarge(): WebhookResponse {
    return errorResponse(
      413,
      `The body is larger than ${maxBodyBytes} bytes. A New Plant payload is a small JSON object; send one plant per request.`,
      { connection: "close" },
    );
  }

  // One async frame per request: the bearer check and the signature are awaited only when they returned a promise
  // (a custom token verifier, WebCrypto, ed25519); on Node the usual request is decided synchronously up to onEvent.
  async function handle(request: WebhookRequest, preflighted = false): Promise<WebhookResponse> {
    try {
      if (!preflighted) {
        const early = preflight(request);
        if (early) return early;
      }
      if (request.body.byteLength > maxBodyBytes) return tooLarge();

      const checked = checkBearer(request.headers("authorization"));
      const auth = checked instanceof Promise ? await checked : checked;
      if (!auth.ok) return errorResponse(auth.status, auth.message, auth.headers);

      const id = request.headers(WEBHOOK_HEADERS.id) ?? null;
      const rawTimestamp = request.headers(WEBHOOK_HEADERS.timestamp) ?? null;
      let timestamp: number | null = null;
      let signature: string | null | undefined;
      if (verify) {
        signature = request.headers(WEBHOOK_HEADERS.signature);
        if (!id || !rawTimestamp || !signature) {
          return errorResponse(
            401,
            "This receiver requires signed webhooks: send webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks).",
            signatureChallenge,
          );
        }
        const verified = verify({
          id,
          timestamp: rawTimestamp,
          signature,
          body: request.body,
          now,
          toleranceSeconds,
        });
        const verdict = verified instanceof Promise ? await verified : verified;
        if (!verdict.ok) {
          const status =
            verdict.code.startsWith("malformed_") || verdict.code === "missing_headers" ? 400 : 401;
          return errorResponse(status, verdict.message, status === 401 ? signatureChallenge : {});
        }
        timestamp = verdict.timestamp;
      } else {
        if (id !== null && (id.length === 0 || id.length > MAX_ID_LENGTH || /[^\x21-\x7e]/.test(id))) {
          return errorResponse(
            400,
            `Malformed webhook-id: send 1 to ${MAX_ID_LENGTH} visible ASCII characters, the same on every retry.`,
          );
        }
        if (rawTimestamp !== null) {
          // The same reading as a signed request's (parseTimestamp), so a timestamp never passes in one mode only.
          timestamp = parseTimestamp(rawTimestamp);
          if (timestamp === null) {
            return errorResponse(400, "Malformed webhook-timestamp: send unix time in whole seconds.");
          }
        }
      }

      const named = request.headers(EVENT_TYPE_HEADER);
      const entry = named ? byType.get(named) : ((byPath ? byPath.get(request.path) : fallback) ?? fallback);
      if (entry === undefined) {
        return errorResponse(
          422,
          `This receiver does not accept ${JSON.stringify(truncate(named ?? "", 100))} events; it accepts ${[...byType.keys()].join(", ")}. Subscribe only to those event types.`,
        );
      }
      const parsed = parseEvent(entry, request.body, { mode });
      if (!parsed.ok) return errorResponse(parsed.kind === "json" ? 400 : 422, parsed.message);

      const event: ReceivedEvent = {
        type: entry.type,
        id,
        timestamp,
        payload: parsed.value,
        body: request.body,
        headers: keptHeaders(
          request.headers,
          named,
          id,
          rawTimestamp,
          verify ? signature : request.headers(WEBHOOK_HEADERS.signature),
        ),
      };
      try {
        if (id === null || !dedup) return okResponse((await onEvent(event))?.duplicate === true);
        // Dedup check → onEvent → add runs for one request per id at a time in this handler: a request whose id is
        // in flight waits, then answers as a duplicate if the first one's onEvent resolved, or takes over (dedup
        // re-checked, onEvent called) if it failed — or if it has not settled within IN_FLIGHT_WAIT_MS: a first
        // request stuck on a dead connection must not hold every retry of its id. Across processes, the dedup store
        // has to decide. (Inline, not a helper: one more async frame per request costs more than the bookkeeping.)
        for (let entry = inFlight.get(id); entry !== undefined; entry = inFlight.get(id)) {
          // The first waiter makes the promise; a request alone with its id never pays for one.
          if (entry.stored === undefined) {
            let settle: (stored: boolean) => void = noop;
            entry.stored = new Promise<boolean>((resolve) => {
              settle = resolve;
            });
            entry.settle = settle;
          }
          let timer: ReturnType<typeof setTimeout> | undefined;
          const outcome = await Promise.race([
            entry.stored,
            new Promise<"stuck">((resolve) => {
              timer = setTimeout(resolve, IN_FLIGHT_WAIT_MS, "stuck");
            }),
          ]);
          clearTimeout(timer);
          if (outcome === true) return okResponse(true);
          if (outcome === "stuck") break; // its slot is replaced below; when it ends it leaves ours alone
        }
        const slot: InFlight = { stored: undefined, settle: noop };
        inFlight.set(id, slot);
        let stored = false;
        try {
          if (await dedup.has(id)) {
            stored = true;
            return okResponse(true);
          }
          const result = await onEvent(event);
          stored = true;
          await dedup.add(id);
          return okResponse(result?.duplicate === true);
        } finally {
          if (inFlight.get(id) === slot) inFlight.delete(id);
          slot.settle(stored);
        }
      } catch (error) {
        logger?.error("storing the event failed", { webhookId: id, error: errorMessage(error) });
        return errorResponse(
          503,
          "The event could not be stored right now. It was not accepted; retry later.",
        );
      }
    } catch (error) {
      logger?.error("webhook pipeline failed", { error: errorMessage(error) });
      return errorResponse(503, "The event could not be processed right now. Retry later.");
    }
  }

  return {
    maxBodyBytes,
    events: served,
    preflight,
    handle: (request) => handle(request),
    tooLarge,
    [AFTER_PREFLIGHT]: (request: WebhookRequest) => handle(request, true),
  } as WebhookHandler;
}

const AFTER_PREFLIGHT = Symbol("plant-store.afterPreflight");

/**
 * `handler.handle(request)` for an adapter that has just run `handler.preflight` on the same request and got null:
 * the pipeline skips those checks instead of repeating them. Any other `WebhookHandler` gets `handle`.
 *
 * @example
 * ```ts
 * const response = handler.preflight(head) ?? (await handleAfterPreflight(handler, { ...head, body }));
 * ```
 */
export function handleAfterPreflight(
  handler: WebhookHandler,
  request: WebhookRequest,
): Promise<WebhookResponse> {
  const checked = (handler as { [AFTER_PREFLIGHT]?: (request: WebhookRequest) => Promise<WebhookResponse> })[
    AFTER_PREFLIGHT
  ];
  return checked ? checked(request) : handler.handle(request);
}

// Senders repeat the same Content-Type on every request; the last accepted value skips the parse (a pure
// function's verdict, so caching it is safe).
let lastJsonContentType = "application/json";

function isJsonContentType(value: string | null | undefined): boolean {
  if (!value) return false;
  if (value === lastJsonContentType) return true;
  if (!parseJsonContentType(value)) return false;
  lastJsonContentType = value;
  return true;
}

function parseJsonContentType(value: string): boolean {
  const [type, ...params] = value.split(";");
  if (type?.trim().toLowerCase() !== "application/json") return false;
  for (const param of params) {
    const [key, raw] = param.split("=");
    if (key?.trim().toLowerCase() === "charset") {
      const charset = raw?.trim().replace(/^"|"$/g, "").toLowerCase();
      if (charset !== "utf-8" && charset !== "utf8") return false;
    }
  }
  return true;
}

/**
 * The headers an event carries to `onEvent`, in this order: `webhook-event-type`, `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, `content-type`, `user-agent` (those the request has). The first four come as `handle` already
 * read them, not read again; `content-type` is read a second time (the preflight checked it) and `user-agent` once.
 * Written out name by name: one store site writing six names goes
 * megamorphic in V8, about 3K instructions per request.
 */
function keptHeaders(
  headers: HeaderLookup,
  type: string | null | undefined,
  id: string | null,
  timestamp: string | null,
  signature: string | null | undefined,
): Record<string, string> {
  const kept: Record<string, string> = {};
  if (type != null) kept[EVENT_TYPE_HEADER] = type;
  if (id != null) kept[WEBHOOK_HEADERS.id] = id;
  if (timestamp != null) kept[WEBHOOK_HEADERS.timestamp] = timestamp;
  if (signature != null) kept[WEBHOOK_HEADERS.signature] = signature;
  const contentType = headers("content-type");
  if (contentType != null) kept["content-type"] = contentType;
  const userAgent = headers("user-agent");
  if (userAgent != null) kept["user-agent"] = userAgent;
  return kept;
}

interface InFlight {
  stored: Promise<boolean> | undefined;
  settle: (stored: boolean) => void;
}

/** How long a request waits for another request of the same webhook-id before running itself. */
const IN_FLIGHT_WAIT_MS = 10_000;

function noop(): void {}

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

function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
