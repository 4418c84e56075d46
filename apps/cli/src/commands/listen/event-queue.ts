import { createMessageId, type ReceivedEvent } from "@plant-store/core";
import type { openStore } from "@plant-store/store";
import { type Forwarded, forwardEvent } from "../../forward.js";
import { isOk, report, reportRetry } from "./report.js";

/** What the listener does with each event, beside the store it keeps them in. */
export interface QueueSettings {
  /** Where to relay each event, with this listener's token; none to only print. */
  forwardTo: URL | null;
  token: string;
  retries: number;
  json: boolean;
  db: string | undefined;
  /** Aborted when the listener stops: what is still queued is not forwarded. */
  signal: AbortSignal;
}

/**
 * The listener's `onEvent`: keeps each event in the inbox (the sender is answered once it is stored), then forwards
 * it one at a time so the downstream sees events in order, and prints each once its forward settled. `settled()`
 * resolves when everything queued is done.
 *
 * @example
 * ```ts
 * const queue = eventQueue(store, { forwardTo: null, token, retries: 5, json: false, db: undefined, signal });
 * createWebhookHandler({ tokens: [token], secrets: [secret], catalog, onEvent: queue.onEvent });
 * ```
 */
export function eventQueue(
  store: Awaited<ReturnType<typeof openStore>>,
  settings: QueueSettings,
): { onEvent: (event: ReceivedEvent) => Promise<{ duplicate: boolean }>; settled: () => Promise<void> } {
  let queue = Promise.resolve();
  const onEvent = async (event: ReceivedEvent) => {
    const webhookId = event.id ?? `rcv_${createMessageId().slice(4)}`;
    const recorded = await store.inbox.record({ webhookId, body: event.body, headers: event.headers });
    queue = queue.then(async () => {
      let forwarded: Forwarded | null = null;
      if (settings.forwardTo && !recorded.duplicate) {
        // The request carried this listener's token (the pipeline checked it): the downstream gets the same.
        forwarded = await forwardEvent(settings.forwardTo, event, {
          retries: settings.retries,
          signal: settings.signal,
          authorization: `Bearer ${settings.token}`,
          onRetry: (result, waitMs) =>
            reportRetry(webhookId, result, waitMs, settings.retries, settings.json),
        });
        if (isOk(forwarded)) await store.inbox.markProcessed(webhookId);
      }
      report(event, recorded.duplicate, forwarded, settings.json, settings.db);
    });
    return { duplicate: recorded.duplicate };
  };
  return { onEvent, settled: () => queue };
}
