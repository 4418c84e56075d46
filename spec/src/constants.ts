/** The event type of the default webhook (New Plant): its operationId, and the first entry of the catalog. */
export const DEFAULT_EVENT_TYPE = "newPlant";
/** The header that names a delivery's event type (its operationId), as GitHub's `X-GitHub-Event` does. */
export const EVENT_TYPE_HEADER = "webhook-event-type";
/** The webhook's name in the document (`summary` of its operation). */
export const WEBHOOK_NAME = "New Plant";
/** The key of the webhook under `webhooks` in openapi.yaml, and the path receivers serve. */
export const WEBHOOK_PATH = "/plant/webhook";
/** The HTTP method a delivery uses. */
export const WEBHOOK_METHOD = "POST";
/** How the contract refers to the webhook. */
export const WEBHOOK_REFERENCE = "WEBHOOK /plant/webhook";
/** The `operationId` of the webhook's operation. */
export const WEBHOOK_OPERATION_ID = "newPlant";
/** The name of the global security scheme (HTTP bearer). */
export const SECURITY_SCHEME = "bearerAuth";
/** The Standard Webhooks header names, lower case. */
export const WEBHOOK_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;
/** Every status code the receiver contract documents. */
export const RECEIVER_STATUS_CODES = [200, 400, 401, 404, 405, 413, 415, 422, 503] as const;
