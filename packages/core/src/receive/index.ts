export {
  createWebhookHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HandleOptions,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from "./handler.js";
export { createMemoryDedup } from "./memory-dedup.js";
export type {
  DedupStore,
  HeaderLookup,
  Logger,
  OnEventResult,
  ReceivedEvent,
  WebhookOutcome,
  WebhookRequest,
  WebhookResponse,
} from "./types.js";
