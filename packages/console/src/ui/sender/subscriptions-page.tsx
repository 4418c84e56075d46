import { useState } from "preact/hooks";
import type { EventType } from "../api.js";
import { usePoll } from "../hooks.js";
import { POLL_MS } from "../poll.js";
import { Empty, ErrorNote, Secret } from "../ui.js";
import { NewSubscriptionForm } from "./new-subscription-form.js";
import type { NewSubscription, SenderApi, Subscription } from "./sender-api.js";
import { SubscriptionTable } from "./subscription-table.js";

/** A new subscription's generated credentials, shown this once. */
function CreatedCredentials({ created, onDone }: { created: NewSubscription; onDone: () => void }) {
  return (
    <section class="card shown-once" aria-labelledby="once">
      <h2 id="once">Subscription {created.id} added</h2>
      <p>
        Give these to the receiver now (<code>--token</code> and <code>--secret</code>): they are shown this
        once.
      </p>
      <Secret label="Bearer token" value={created.token} />
      <Secret label="Signing secret" value={created.secret} />
      <button type="button" onClick={onDone}>
        Done, I have copied them
      </button>
    </section>
  );
}

/**
 * Subscriptions: the list and a form to add one.
 *
 * @example
 * ```tsx
 * <SubscriptionsPage api={api} types={types} />
 * ```
 */
export function SubscriptionsPage({
  api,
  types,
  application,
}: {
  api: SenderApi;
  types: EventType[];
  /** Only this application's (its uid or id), and new ones are its; absent: every application's. */
  application?: string | undefined;
}) {
  const [list, setList] = useState<Subscription[] | null>(null);
  const [created, setCreated] = useState<NewSubscription | null>(null);
  const query = application === undefined ? {} : { application };
  const poll = usePoll(
    async () => setList((await api.call("listSubscriptions", { query })).data),
    POLL_MS * 5,
    [application],
  );
  return (
    <>
      <h1>Subscriptions{application !== undefined && ` of ${application}`}</h1>
      <NewSubscriptionForm
        api={api}
        application={application}
        types={types}
        onCreated={async (answer) => {
          setCreated(answer);
          await poll.refresh();
        }}
      />
      {created && <CreatedCredentials created={created} onDone={() => setCreated(null)} />}
      <section aria-labelledby="all-subscriptions">
        <h2 id="all-subscriptions">All subscriptions</h2>
        <ErrorNote error={poll.error} />
        {list === null ? (
          poll.error ? null : (
            <p>Loading…</p>
          )
        ) : list.length === 0 ? (
          <Empty>
            No subscriptions yet: add one above, or run <code>plant-store subscriptions add &lt;url&gt;</code>
            .
          </Empty>
        ) : (
          <SubscriptionTable list={list} types={types} />
        )}
      </section>
    </>
  );
}
