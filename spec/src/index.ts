/**
 * The OpenAPI Plant Store contract as a package: generated types, the webhook catalog (every webhook of the
 * document as data: type, path, JSON Schema, examples, responses), the document as data, constants for the
 * default webhook (New Plant), and example payloads.
 *
 * @module
 * @example
 * ```ts
 * import { type NewPlant, WEBHOOK_PATH, document } from "@plant-store/spec";
 * const plant: NewPlant = { id: 1, name: "Monstera" };
 * console.log(document.info.title, WEBHOOK_PATH); // "OpenAPI Plant Store" "/plant/webhook"
 * ```
 */
import type { components, webhooks } from "./generated/openapi.js";

export { buildCatalog } from "./catalog/build-catalog.js";
export { findEvent, unknownEventMessage } from "./catalog/find-event.js";
export type {
  BodyOf,
  Catalog,
  JsonSchema,
  WebhookEntry,
  WebhookExample,
  WebhookResponse,
} from "./catalog/types.js";
export * from "./constants.js";
export type { ExamplePayload } from "./examples-types.js";
export {
  catalog,
  type EventPayloads,
  type EventType,
  type SafeEventPayloads,
} from "./generated/catalog.js";
export { document } from "./generated/document.js";
export { examples } from "./generated/examples.js";
export type { components, paths, webhooks } from "./generated/openapi.js";
export {
  type OperationalEventType,
  type OperationalPayloads,
  operationalCatalog,
  operationalDocument,
} from "./generated/operational.js";

/** A plant: `name` (required) and an optional `tag`. */
export type Plant = components["schemas"]["Plant"];
/** The New Plant event payload: a `Plant` with a required int64 `id`. */
export type NewPlant = components["schemas"]["NewPlant"];
/** The error body every non-2xx response of the receiver carries. */
export type ApiError = components["schemas"]["Error"];

type NewPlantOperation = NonNullable<webhooks["/plant/webhook"]["post"]>;
/** The New Plant webhook operation (request and responses) as openapi-typescript describes it. */
export type NewPlantWebhook = NewPlantOperation;
/** The request body of the New Plant webhook. */
export type NewPlantRequest = NewPlantOperation["requestBody"]["content"]["application/json"];
/** The headers of the New Plant webhook (the optional Standard Webhooks headers). */
export type NewPlantRequestHeaders = NonNullable<NewPlantOperation["parameters"]["header"]>;
/** The responses of the New Plant webhook, keyed by status code. */
export type NewPlantResponses = NewPlantOperation["responses"];
/** The status codes a receiver may answer with. */
export type NewPlantResponseStatus = keyof NewPlantResponses;
