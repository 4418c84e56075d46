import { DEFAULT_TIMEOUT_MS, signatureHeader } from "@plant-store/core";
import {
  type Catalog,
  EVENT_TYPE_HEADER,
  catalog as specCatalog,
  WEBHOOK_HEADERS,
  type WebhookEntry,
} from "@plant-store/spec";
import { exchange } from "../http-exchange.js";
import { sampleFromSchema, toJsonText } from "../payload/from-schema.js";
import type { CheckResult, Exchange } from "../types.js";

/** How to reach a receiver and what it was configured with. */
export interface ReceiverOptions {
  /** The webhook URL, e.g. `http://127.0.0.1:4000/plant/webhook` (see {@link urlFor} for other webhooks). */
  readonly url: string;
  /** The bearer token the receiver expects; without it the bearer checks are skipped and no token is sent. */
  readonly token?: string | undefined;
  /** `whsec_` secrets the receiver verifies `v1` signatures with; every valid delivery is signed with them. */
  readonly secrets?: readonly string[] | undefined;
  /** `whsk_` private keys whose public keys the receiver holds: deliveries are signed `v1a` with them too. */
  readonly privateKeys?: readonly string[] | undefined;
  /** `whpk_` public keys the receiver holds: enables the check that another key's `v1a` signature is refused. */
  readonly publicKeys?: readonly string[] | undefined;
  /** The webhooks to check (default: the Plant Store document's). */
  readonly catalog?: Catalog | undefined;
  /** Call a Fetch handler in-process instead of the network (the URL still names the path). */
  readonly handler?: ((request: Request) => Promise<Response>) | undefined;
  readonly fetch?: typeof fetch | undefined;
  /** Check ids (or prefixes ending in `.`) to run alone / to leave out. */
  readonly only?: readonly string[] | undefined;
  readonly skip?: readonly string[] | undefined;
  /** Opt-in groups: `load` (a burst of concurrent deliveries). */
  readonly include?: readonly "load"[] | undefined;
  /** The sender's attempt timeout a receiver must answer within (default: the toolkit's, 15 s). */
  readonly attemptTimeoutMs?: number | undefined;
  /** Concurrent deliveries of the burst check (default 50). */
  readonly burst?: number | undefined;
  /** The size of the oversized body (default 10 MiB + 1 byte). */
  readonly oversizedBytes?: number | undefined;
  /** Called after each check, e.g. for a progress bar. */
  readonly onResult?: ((result: CheckResult, done: number, total: number) => void) | undefined;
  readonly now?: (() => number) | undefined;
}

/** One request a check sends: what differs from a valid delivery is given, the rest is filled in. */
export interface DeliverySpec {
  readonly entry: WebhookEntry;
  readonly body?: string | undefined;
  /** `null` leaves the header out; absent means a fresh unique id. */
  readonly id?: string | null | undefined;
  /** `null` leaves the header out; absent means now. */
  readonly timestamp?: string | null | undefined;
  /** `null` leaves the header out; absent means signed with the run's secrets and keys. */
  readonly signature?: string | null | undefined;
  /** `null` leaves the header out; absent means `Bearer <token>` when the run has a token. */
  readonly authorization?: string | null | undefined;
  readonly contentType?: string | null | undefined;
}

/** What every receiver check gets: the resolved options and a way to send deliveries. */
export interface ReceiverContext {
  readonly options: ResolvedOptions;
  readonly entries: Catalog;
  /** Sends one delivery (see {@link DeliverySpec}) and records the exchange. */
  deliver(spec: DeliverySpec): Promise<Exchange>;
  /** The signed headers of a message, as a valid delivery carries them. */
  sign(id: string, timestamp: string, body: string): Promise<string | undefined>;
  newId(): string;
  nowSeconds(): number;
  /** A valid payload of the entry: its first example, else one built from its schema. */
  validBody(entry: WebhookEntry): string;
  /** A fresh valid message of the document's first webhook: its entry, a new id, now, a valid body. */
  message(): { entry: WebhookEntry; id: string; timestamp: string; body: string };
}

export interface ResolvedOptions extends ReceiverOptions {
  readonly secrets: readonly string[];
  readonly privateKeys: readonly string[];
  readonly publicKeys: readonly string[];
  readonly attemptTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly burst: number;
  readonly oversizedBytes: number;
}

/** The receiver's defaults, said once. */
export const RECEIVER_DEFAULTS = { burst: 50, oversizedBytes: 10 * 1024 * 1024 + 1 } as const;

export function resolveOptions(options: ReceiverOptions): ResolvedOptions {
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    ...options,
    secrets: options.secrets ?? [],
    privateKeys: options.privateKeys ?? [],
    publicKeys: options.publicKeys ?? [],
    attemptTimeoutMs,
    // A check waits a little past the attempt timeout, so an answer just too late is seen as late, not as missing.
    requestTimeoutMs: attemptTimeoutMs + 5_000,
    burst: options.burst ?? RECEIVER_DEFAULTS.burst,
    oversizedBytes: options.oversizedBytes ?? RECEIVER_DEFAULTS.oversizedBytes,
  };
}

/**
 * The URL a webhook's deliveries go to. When the given URL's path is one of the document's webhook paths, each
 * webhook goes to its own path on that origin; otherwise the receiver routes by `webhook-event-type` and every
 * webhook goes to the URL as given.
 */
export function urlFor(url: string, entries: Catalog, entry: WebhookEntry): string {
  const base = new URL(url);
  if (!entries.some((candidate) => candidate.path === base.pathname)) return base.href;
  return new URL(entry.path, base).href;
}

export function createContext(options: ReceiverOptions): ReceiverContext {
  const resolved = resolveOptions(options);
  const entries = resolved.catalog ?? specCatalog;
  const send = resolved.handler ?? resolved.fetch ?? ((request: Request) => fetch(request));
  const now = resolved.now ?? Date.now;
  const context: ReceiverContext = {
    options: resolved,
    entries,
    newId: () => `msg_conformance_${globalThis.crypto.randomUUID().replaceAll("-", "")}`,
    nowSeconds: () => Math.floor(now() / 1000),
    validBody: (entry) => validBody(entry),
    message: () => {
      const entry = entries[0];
      if (!entry) throw new Error("the document has no webhook");
      return { entry, id: context.newId(), timestamp: String(context.nowSeconds()), body: validBody(entry) };
    },
    sign: (id, timestamp, body) => signWith(resolved, id, timestamp, body),
    deliver: async (spec) => {
      const body = spec.body ?? validBody(spec.entry);
      const request = await buildRequest(context, spec, body);
      return exchange(send, request, body, resolved.requestTimeoutMs);
    },
  };
  return context;
}

function validBody(entry: WebhookEntry): string {
  const example = entry.examples[0];
  return example ? JSON.stringify(example.value) : toJsonText(sampleFromSchema(entry.schema));
}

async function signWith(options: ResolvedOptions, id: string, timestamp: string, body: string) {
  if (options.secrets.length === 0 && options.privateKeys.length === 0) return undefined;
  return signatureHeader({
    secrets: [...options.secrets],
    privateKeys: [...options.privateKeys],
    id,
    timestamp,
    body,
  });
}

async function buildRequest(context: ReceiverContext, spec: DeliverySpec, body: string): Promise<Request> {
  const { options } = context;
  const headers = new Headers();
  const id = spec.id === undefined ? context.newId() : spec.id;
  const timestamp = spec.timestamp === undefined ? String(context.nowSeconds()) : spec.timestamp;
  const signature =
    spec.signature === undefined && id !== null && timestamp !== null
      ? await context.sign(id, timestamp, body)
      : (spec.signature ?? undefined);
  const authorization =
    spec.authorization === undefined
      ? options.token
        ? `Bearer ${options.token}`
        : undefined
      : spec.authorization;
  const contentType = spec.contentType === undefined ? "application/json" : spec.contentType;
  if (contentType !== null) headers.set("content-type", contentType);
  if (authorization) headers.set("authorization", authorization);
  if (id !== null) headers.set(WEBHOOK_HEADERS.id, id);
  if (timestamp !== null) headers.set(WEBHOOK_HEADERS.timestamp, timestamp);
  if (signature) headers.set(WEBHOOK_HEADERS.signature, signature);
  headers.set(EVENT_TYPE_HEADER, spec.entry.type);
  return new Request(urlFor(options.url, context.entries, spec.entry), {
    method: spec.entry.method,
    headers,
    // Bytes, not a string: a string body would bring its own `text/plain` content type.
    body: new TextEncoder().encode(body),
    signal: AbortSignal.timeout(options.requestTimeoutMs),
  });
}
