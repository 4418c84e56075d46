export {
  createWebhookHandler,
  DEFAULT_MAX_BODY_BYTES,
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
