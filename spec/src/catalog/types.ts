/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown } | boolean;

/** A named example payload of a webhook, from its request body's `examples` (or `example`). */
export interface WebhookExample {
  readonly name: string;
  readonly summary?: string;
  /** The payload as the document holds it (numbers beyond 2^53 are rounded by YAML; see spec/examples/). */
  readonly value: unknown;
}

/** One documented answer of a receiver. */
export interface WebhookResponse {
  readonly description: string;
  readonly schema?: JsonSchema;
}

/**
 * One webhook of the document: everything a receiver, a sender or a tool needs to handle its events.
 *
 * @example
 * ```ts
 * const entry: WebhookEntry = catalog[0];
 * console.log(`${entry.type}: ${entry.method} ${entry.path}`); // "newPlant: POST /plant/webhook"
 * ```
 */
export interface WebhookEntry {
  /** The event type: the operation's `operationId`, stable and unique in the document (e.g. `newPlant`). */
  readonly type: string;
  /** A human name: the operation's `summary`, else its type (e.g. `New Plant`). */
  readonly name: string;
  /** The key under `webhooks`: the path a receiver serves it at (e.g. `/plant/webhook`). */
  readonly path: string;
  /** The HTTP method of a delivery, upper case (`POST`). */
  readonly method: string;
  readonly operationId: string;
  readonly summary?: string;
  readonly description?: string;
  /** The request body's JSON Schema with every `$ref` resolved. */
  readonly schema: JsonSchema;
  readonly examples: readonly WebhookExample[];
  /** Status code → documented answer. */
  readonly responses: { readonly [status: string]: WebhookResponse };
}

/** A list of webhooks, as {@link buildCatalog} reads them or `gen` commits them. */
export type Catalog = readonly WebhookEntry[];

/** The `application/json` request body of an operation as openapi-typescript describes it. */
export type BodyOf<Operation> = Operation extends {
  requestBody?: { content: { "application/json": infer Body } } | undefined;
}
  ? Body
  : never;
