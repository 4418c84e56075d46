import { createMessageId, type ReceivedEvent } from "@plant-store/core";
import type { InboxRecordResult, Store } from "@plant-store/store";
import { type receiverTracer, traceCommit } from "./tracing.js";

/**
 * The pipeline's `onEvent`: the store's inbox commits the event and says itself whether it was a duplicate; its
 * result goes to the pipeline as it comes, without another async frame. Traced as the commit's span when a tracer is
 * registered.
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({ tokens, onEvent: createRecordEvent(store, receiverTracer()) });
 * ```
 */
export function createRecordEvent(
  store: Store,
  tracer: ReturnType<typeof receiverTracer>,
): (event: ReceivedEvent) => Promise<InboxRecordResult> {
  return (event) => {
    // Without a webhook-id (only possible when no secret is configured) nothing can be deduplicated:
    // the event is stored under an id of our own, `rcv_…`, sortable like the sender's message ids.
    const webhookId = event.id ?? `rcv_${createMessageId().slice(4)}`;
    const input = { webhookId, eventType: event.type, body: event.body, headers: event.headers };
    const traced = tracer();
    return traced
      ? traceCommit(traced, { id: webhookId, type: event.type, size: event.body.byteLength }, () =>
          store.inbox.record(input),
        )
      : store.inbox.record(input);
  };
}
