import { useState } from "preact/hooks";
import type { EventType } from "../api.js";
import { usePoll } from "../hooks.js";
import { POLL_MS } from "../poll.js";
import { Empty, ErrorNote, JsonText, StateBadge, Time, useAction } from "../ui.js";
import { AttemptTable } from "./attempt-table.js";
import type { Attempt, Delivery, Message, SenderApi } from "./sender-api.js";
import { typeNames } from "./type-names.js";

/** What is known of a delivery, as a list of facts (its event type is its message's). */
function DeliveryFacts({
  delivery,
  message,
  types,
}: {
  delivery: Delivery;
  message: Message | null;
  types: EventType[];
}) {
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>
        <StateBadge state={delivery.state} />
      </dd>
      <dt>Subscription</dt>
      <dd>
        <a href={`#/subscriptions/${delivery.subscriptionId}`}>{delivery.subscriptionId}</a>
      </dd>
      <dt>Message</dt>
      <dd class="mono">{delivery.messageId}</dd>
      <dt>Event type</dt>
      <dd>{message ? typeNames([message.eventType], types) : "…"}</dd>
      <dt>Next attempt</dt>
      <dd>{delivery.state === "pending" ? <Time at={delivery.dueAt} /> : "—"}</dd>
      <dt>Finished</dt>
      <dd>
        <Time at={delivery.finishedAt} />
      </dd>
    </dl>
  );
}

/** The message's payload exactly as published. */
function Payload({ message }: { message: Message }) {
  return (
    <section aria-labelledby="payload">
      <h2 id="payload">Payload</h2>
      <p class="muted">
        Published <Time at={message.createdAt} />
        {message.idempotencyKey && ` with Idempotency-Key ${message.idempotencyKey}`}.
      </p>
      <JsonText text={message.payload} label="Payload as published" />
    </section>
  );
}

/** Queues the delivery again, and says so. */
function ResendButton({
  api,
  delivery,
  onResent,
}: {
  api: SenderApi;
  delivery: Delivery;
  onResent: (again: Delivery) => void;
}) {
  const action = useAction();
  const [done, setDone] = useState("");
  return (
    <>
      <p>
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              onResent(await api.call("resendDelivery", { params: { id: String(delivery.id) } }));
              setDone("Queued again: the worker sends it now.");
            })
          }
        >
          Resend
        </button>{" "}
        <span role="status">{done}</span>
      </p>
      <ErrorNote error={action.error} />
    </>
  );
}

/**
 * One delivery: its message, its attempts (live), and resend.
 *
 * @example
 * ```tsx
 * <DeliveryPage api={api} id="12" types={types} />
 * ```
 */
export function DeliveryPage({ api, id, types }: { api: SenderApi; id: string; types: EventType[] }) {
  const [delivery, setDelivery] = useState<Delivery | null>(null);
  const [attempts, setAttempts] = useState<Attempt[]>([]);
  const [message, setMessage] = useState<Message | null>(null);
  const { error } = usePoll(
    async () => {
      const found = await api.call("getDelivery", { params: { id } });
      setDelivery(found);
      setAttempts((await api.call("listAttempts", { params: { id } })).data);
      if (!message || message.id !== found.messageId) setMessage(await api.message(found.messageId));
    },
    POLL_MS,
    [id],
  );
  if (!delivery) return error ? <ErrorNote error={error} /> : <p>Loading…</p>;
  return (
    <>
      <h1>Delivery {delivery.id}</h1>
      <ErrorNote error={error} />
      <DeliveryFacts delivery={delivery} message={message} types={types} />
      <ResendButton api={api} delivery={delivery} onResent={setDelivery} />
      <section aria-labelledby="attempts">
        <h2 id="attempts">Attempts ({attempts.length})</h2>
        {attempts.length === 0 ? (
          <Empty>No attempt yet: the worker picks it up when it is due.</Empty>
        ) : (
          <AttemptTable attempts={attempts} />
        )}
      </section>
      {message && <Payload message={message} />}
    </>
  );
}
