import { useState } from "preact/hooks";
import type { EventType } from "../api.js";
import { usePoll } from "../hooks.js";
import { POLL_MS } from "../poll.js";
import { ErrorNote, Secret, StateBadge, Time } from "../ui.js";
import { useCardActions } from "./card-actions.js";
import { ChangeUrlCard } from "./change-url-card.js";
import { DisableCard } from "./disable-card.js";
import { EnableCard } from "./enable-card.js";
import { EndpointOptionsCard } from "./endpoint-options-card.js";
import { RecoverCard } from "./recover-card.js";
import { RotateCard, type ShownOnce } from "./rotate-card.js";
import type { SenderApi, Subscription } from "./sender-api.js";
import { typeNames } from "./type-names.js";

/** What is known of a subscription, as a list of facts. */
function SubscriptionFacts({ sub, types }: { sub: Subscription; types: EventType[] }) {
  return (
    <dl class="facts">
      <dt>URL</dt>
      <dd class="wrap">{sub.url}</dd>
      <dt>State</dt>
      <dd>
        <StateBadge state={sub.enabled ? "enabled" : "disabled"} />{" "}
        {sub.disabledReason && `${sub.disabledReason} (`}
        {sub.disabledAt && <Time at={sub.disabledAt} />}
        {sub.disabledReason && ")"}
      </dd>
      <dt>Event types</dt>
      <dd>{typeNames(sub.eventTypes, types)}</dd>
      <dt>Failing since</dt>
      <dd>
        <Time at={sub.failingSince} />
      </dd>
      <dt>Your id</dt>
      <dd class="mono">{sub.uid ?? "—"}</dd>
      <dt>Description</dt>
      <dd>{sub.description || "—"}</dd>
      <dt>Metadata</dt>
      <dd class="wrap mono">
        {Object.keys(sub.metadata).length === 0
          ? "—"
          : Object.entries(sub.metadata)
              .map(([k, v]) => `${k}=${v}`)
              .join(", ")}
      </dd>
      <dt>Rate limit</dt>
      <dd>{sub.rateLimit === null ? "none" : `${sub.rateLimit} per second`}</dd>
      <dt>Added headers</dt>
      <dd class="mono">{sub.headerNames.length === 0 ? "none" : sub.headerNames.join(", ")}</dd>
      <dt>Signing secrets in use</dt>
      <dd>{sub.signingSecrets}</dd>
      <dt>Created</dt>
      <dd>
        <Time at={sub.createdAt} />
      </dd>
    </dl>
  );
}

/**
 * One subscription and what can be done to it, a card for each action.
 *
 * @example
 * ```tsx
 * <SubscriptionPage api={api} id="7" types={types} />
 * ```
 */
export function SubscriptionPage({ api, id, types }: { api: SenderApi; id: string; types: EventType[] }) {
  const [sub, setSub] = useState<Subscription | null>(null);
  const [shown, setShown] = useState<ShownOnce | null>(null);
  const poll = usePoll(
    async () => setSub(await api.call("getSubscription", { params: { id } })),
    POLL_MS * 5,
    [id],
  );
  const cards = useCardActions(poll.refresh);
  if (!sub) return poll.error ? <ErrorNote error={poll.error} /> : <p>Loading…</p>;
  const card = { api, sub, cards };
  return (
    <>
      <h1>Subscription {sub.id}</h1>
      <ErrorNote error={poll.error} />
      <SubscriptionFacts sub={sub} types={types} />
      <p>
        <a href={`#/deliveries?subscriptionId=${encodeURIComponent(sub.id)}`}>
          Deliveries to this subscription
        </a>
      </p>
      {shown && (
        <section class="card shown-once" aria-label="Shown once">
          <p>Shown this once: give it to the receiver now.</p>
          <Secret label={shown.label} value={shown.value} />
        </section>
      )}
      <div class="grid">
        <ChangeUrlCard {...card} />
        <EndpointOptionsCard {...card} />
        {sub.enabled ? <DisableCard {...card} /> : <EnableCard {...card} />}
        <RotateCard {...card} onShown={setShown} />
        <RecoverCard {...card} />
      </div>
    </>
  );
}
