import type { EventPayloads } from "@plant-store/spec";

/** Looks up a request header by its lower-case name. */
export type HeaderLookup = (name: string) => string | null | undefined;

/** What every adapter hands the pipeline: plain data, no runtime objects. */
export interface WebhookRequest {
  method: string;
  /** The request path without the query string. */
  path: string;
  headers: HeaderLookup;
  /** The raw body bytes, exactly as received. */
  body: Uint8Array;
}

/** What the pipeline answers; adapters copy it onto their runtime's response. */
export interface WebhookResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** JSON text (`{ error, message }` on failures) or "" for 200. */
  body: string;
  /**
   * What happened, as a value for the app's log line and metrics (nothing here is sent): `stored` (200, a new
   * event), `duplicate` (200, its webhook-id was stored before) or `rejected` with the refusal's message as `reason`.
   */
  outcome: WebhookOutcome;
}

/** The outcome of one webhook request; see {@link WebhookResponse.outcome}. */
export type WebhookOutcome =
  | { readonly kind: "stored" | "duplicate" }
  | { readonly kind: "rejected"; readonly reason: string };

/** A verified, validated event, handed to `onEvent`. */
export interface ReceivedEvent<P = unknown, T extends string = string> {
  /** The event type: its webhook's operationId (`newPlant`). */
  type: T;
  /** `webhook-id`, or null when the sender sent none (only possible without signing secrets). */
  id: string | null;
  /** `webhook-timestamp` in unix seconds, or null when absent. */
  timestamp: number | null;
  payload: P;
  /** The exact bytes received. */
  body: Uint8Array;
  /** The headers worth keeping (webhook-*, content-type, user-agent); never `authorization`. */
  headers: Record<string, string>;
}

/** Remembers which `webhook-id`s were already handled. */
export interface DedupStore {
  has(id: string): boolean | Promise<boolean>;
  add(id: string): void | Promise<void>;
}

/** What `onEvent` may answer: a store that deduplicates itself reports duplicates here. */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets `onEvent` be a plain `(e) => { save(e) }` callback.
export type OnEventResult = void | undefined | { duplicate?: boolean | undefined };

/** A minimal logger; `console` fits. */
export interface Logger {
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/**
 * One event of a catalog, as a union discriminated on `type`: `switch (event.type)` narrows `payload`.
 *
 * @example
 * ```ts
 * const onEvent = (event: CatalogEvent) => {
 *   switch (event.type) {
 *     case "newPlant": return save(event.payload.id, event.payload.name); // payload: the New Plant body
 *   }
 * };
 * ```
 */
export type CatalogEvent<Payloads = EventPayloads> = {
  [T in keyof Payloads & string]: ReceivedEvent<Payloads[T], T>;
}[keyof Payloads & string];
