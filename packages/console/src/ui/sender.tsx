import { useState } from "preact/hooks";
import type { EventType, Health as HealthState } from "./api.js";
import { OutcomeChart } from "./chart.js";
import { usePoll } from "./hooks.js";
import {
  type Attempt,
  DELIVERY_STATES,
  type Delivery,
  type Message,
  type NewSubscription,
  type SenderApi,
  type Subscription,
} from "./sender-api.js";
import { Empty, ErrorNote, JsonText, Secret, StateBadge, TableWrap, Time, useAction } from "./ui.js";

/** How often the live views ask again (only while the tab is visible). */
const POLL_MS = 2000;
const HOUR_MS = 3_600_000;

/** Overview: store health, deliveries by outcome over the last hour, and publishing. */
export function SenderOverview({ api }: { api: SenderApi }) {
  const [recent, setRecent] = useState<Delivery[] | null>(null);
  const [now, setNow] = useState(Date.now());
  const [error, setError] = useState<string | null>(null);
  usePoll(
    async () => {
      const since = Date.now() - HOUR_MS;
      const found: Delivery[] = [];
      let cursor: string | null = null;
      // Newest first: stop at the first page that reaches past the hour (at most 10 000 deliveries).
      for (let page = 0; page < 10; page++) {
        const result: { data: Delivery[]; nextCursor: string | null } = await api.call("listDeliveries", {
          query: { limit: "1000", ...(cursor && { cursor }) },
        });
        found.push(...result.data);
        const last = result.data.at(-1);
        cursor = result.nextCursor;
        if (!cursor || !last || Date.parse(last.createdAt) < since) break;
      }
      setRecent(found);
      setNow(Date.now());
      setError(null);
    },
    POLL_MS * 2,
    [],
  );
  return (
    <>
      <h1>Sender</h1>
      <Health check={api.health} />
      <section aria-labelledby="outcomes">
        <h2 id="outcomes">Last hour</h2>
        <ErrorNote error={error} />
        {recent === null ? (
          <p>Loading…</p>
        ) : recent.length === 0 ? (
          <Empty>
            No deliveries yet. <a href="#/subscriptions">Add a subscription</a>, then{" "}
            <a href="#/publish">publish an event</a> (or <code>plant-store publish</code>).
          </Empty>
        ) : (
          <OutcomeChart deliveries={recent} now={now} />
        )}
      </section>
    </>
  );
}

/** `/readyz` in words (either app's: `check` asks it). */
export function Health({ check }: { check: () => Promise<HealthState> }) {
  const [health, setHealth] = useState<HealthState | null>(null);
  usePoll(async () => setHealth(await check()), POLL_MS * 5, []);
  return (
    <section aria-labelledby="health">
      <h2 id="health">Store</h2>
      {health === null ? (
        <p>Checking…</p>
      ) : (
        <p class={health.ready ? "ok" : "error"}>
          <strong>{health.ready ? "Ready." : "Not ready."}</strong> {health.detail}
        </p>
      )}
    </section>
  );
}

/** Subscriptions: the list and a form to add one. */
export function SubscriptionsPage({ api, types }: { api: SenderApi; types: EventType[] }) {
  const [list, setList] = useState<Subscription[] | null>(null);
  const [url, setUrl] = useState("");
  const [own, setOwn] = useState({ token: "", secret: "" });
  const [takes, setTakes] = useState<string[]>([]);
  const [created, setCreated] = useState<NewSubscription | null>(null);
  const action = useAction();
  const load = async () => setList((await api.call("listSubscriptions", {})).data);
  usePoll(load, POLL_MS * 5, []);
  return (
    <>
      <h1>Subscriptions</h1>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            setCreated(
              await api.call("createSubscription", {
                body: {
                  url: url.trim(),
                  ...(own.token.trim() && { token: own.token.trim() }),
                  ...(own.secret.trim() && { secret: own.secret.trim() }),
                  // None ticked: every type, also those added to the document later.
                  eventTypes: takes.length > 0 ? takes : null,
                },
              }),
            );
            setUrl("");
            setOwn({ token: "", secret: "" });
            setTakes([]);
            await load();
          });
        }}
      >
        <h2>Add a subscription</h2>
        <label for="new-url">Receiver URL</label>
        <div class="row">
          <input
            id="new-url"
            type="url"
            required
            placeholder="https://receiver.example/plant/webhook"
            value={url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={action.busy}>
            Add
          </button>
        </div>
        {types.length > 1 && (
          <fieldset>
            <legend>Event types it receives (none ticked: every type, also ones added later)</legend>
            {types.map((t) => (
              <label key={t.type} class="check">
                <input
                  type="checkbox"
                  checked={takes.includes(t.type)}
                  onChange={(e) =>
                    setTakes(
                      (e.target as HTMLInputElement).checked
                        ? [...takes, t.type]
                        : takes.filter((x) => x !== t.type),
                    )
                  }
                />{" "}
                {t.name} <span class="muted mono">{t.type}</span>
              </label>
            ))}
          </fieldset>
        )}
        <details>
          <summary>The receiver already has a token and secret</summary>
          <p class="muted">Leave these empty to have new ones generated (shown once, below).</p>
          <label for="own-token">Bearer token to use</label>
          <input
            id="own-token"
            autocomplete="off"
            value={own.token}
            onInput={(e) => setOwn({ ...own, token: (e.target as HTMLInputElement).value })}
          />
          <label for="own-secret">Signing secret to use</label>
          <input
            id="own-secret"
            autocomplete="off"
            placeholder="whsec_…"
            value={own.secret}
            onInput={(e) => setOwn({ ...own, secret: (e.target as HTMLInputElement).value })}
          />
        </details>
        <ErrorNote error={action.error} />
      </form>
      {created && (
        <section class="card shown-once" aria-labelledby="once">
          <h2 id="once">Subscription {created.id} added</h2>
          <p>
            Give these to the receiver now (<code>--token</code> and <code>--secret</code>): they are shown
            this once.
          </p>
          <Secret label="Bearer token" value={created.token} />
          <Secret label="Signing secret" value={created.secret} />
          <button type="button" onClick={() => setCreated(null)}>
            Done, I have copied them
          </button>
        </section>
      )}
      <section aria-labelledby="all-subscriptions">
        <h2 id="all-subscriptions">All subscriptions</h2>
        {list === null ? (
          <p>Loading…</p>
        ) : list.length === 0 ? (
          <Empty>
            No subscriptions yet: add one above, or run <code>plant-store subscriptions add &lt;url&gt;</code>
            .
          </Empty>
        ) : (
          <TableWrap label="Subscriptions">
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">URL</th>
                <th scope="col">Event types</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={`#/subscriptions/${s.id}`}>{s.id}</a>
                  </td>
                  <td class="wrap">{s.url}</td>
                  <td>{typeNames(s.eventTypes, types)}</td>
                  <td>
                    <StateBadge state={s.enabled ? "enabled" : "disabled"} />
                    {s.disabledReason && <span class="muted"> {s.disabledReason}</span>}
                  </td>
                  <td>
                    <Time at={s.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        )}
      </section>
    </>
  );
}

/** The event types a subscription receives, by name. */
function typeNames(taken: readonly string[] | null, types: EventType[]): string {
  if (taken === null) return "every type";
  return taken.map((type) => types.find((t) => t.type === type)?.name ?? type).join(", ");
}

/** One subscription and what can be done to it. */
export function SubscriptionPage({ api, id, types }: { api: SenderApi; id: string; types: EventType[] }) {
  const [sub, setSub] = useState<Subscription | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const [grace, setGrace] = useState("86400");
  const [since, setSince] = useState("");
  const [shown, setShown] = useState<{ label: string; value: string } | null>(null);
  const [done, setDone] = useState<{ at: string; text: string } | null>(null);
  const [failedAt, setFailedAt] = useState<string | null>(null);
  const action = useAction();
  const load = async () => {
    try {
      setSub(await api.call("getSubscription", { params: { id } }));
      setLoadError(null);
    } catch (e) {
      setLoadError((e as Error).message);
    }
  };
  usePoll(load, POLL_MS * 5, [id]);
  // Each card answers in itself: a refusal shows beside the form that caused it.
  const act = (at: string, work: () => Promise<string>) => {
    setDone(null);
    setFailedAt(at);
    return action.run(async () => {
      setDone({ at, text: await work() });
      await load();
    });
  };
  const feedback = (at: string) => (
    <>
      {failedAt === at && <ErrorNote error={action.error} />}
      <p role="status" class="ok">
        {done?.at === at ? done.text : ""}
      </p>
    </>
  );
  if (loadError && !sub) return <ErrorNote error={loadError} />;
  if (!sub) return <p>Loading…</p>;
  return (
    <>
      <h1>Subscription {sub.id}</h1>
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
        <dt>Signing secrets in use</dt>
        <dd>{sub.signingSecrets}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={sub.createdAt} />
        </dd>
      </dl>
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
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void act("url", async () => {
              await api.call("updateSubscription", {
                params: { id: sub.id },
                body: { url: (url ?? sub.url).trim() },
              });
              setUrl(null);
              return "The URL is changed.";
            });
          }}
        >
          <h2>Change URL</h2>
          <label for="edit-url">New URL</label>
          <input
            id="edit-url"
            type="url"
            required
            value={url ?? sub.url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={action.busy}>
            Change URL
          </button>
          {feedback("url")}
        </form>
        {sub.enabled ? (
          <form
            class="card"
            onSubmit={(e) => {
              e.preventDefault();
              void act("disable", async () => {
                await api.call("disableSubscription", {
                  params: { id: sub.id },
                  body: reason.trim() ? { reason: reason.trim() } : {},
                });
                setReason("");
                return "Disabled: nothing is delivered to it until it is enabled.";
              });
            }}
          >
            <h2>Disable</h2>
            <label for="reason">Reason (optional)</label>
            <input
              id="reason"
              maxLength={1000}
              value={reason}
              onInput={(e) => setReason((e.target as HTMLInputElement).value)}
            />
            <button type="submit" disabled={action.busy}>
              Disable
            </button>
            {feedback("disable")}
          </form>
        ) : (
          <div class="card">
            <h2>Enable</h2>
            <p>Deliveries resume; those that failed while it was off can be re-sent with “Recover”.</p>
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                void act("enable", async () => {
                  await api.call("enableSubscription", { params: { id: sub.id } });
                  return "Enabled.";
                })
              }
            >
              Enable
            </button>
            {feedback("enable")}
          </div>
        )}
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void act("rotate", async () => {
              const rotated = await api.call("rotateCredential", {
                params: { id: sub.id },
                body: { kind: "secret", graceSeconds: Number(grace) },
              });
              if ("secret" in rotated) setShown({ label: "New signing secret", value: rotated.secret });
              return `New secret made; the old one still signs for ${grace} seconds.`;
            });
          }}
        >
          <h2>Rotate the signing secret</h2>
          <label for="grace">Old secret kept for (seconds, up to 604800)</label>
          <input
            id="grace"
            type="number"
            min={0}
            max={604800}
            required
            value={grace}
            onInput={(e) => setGrace((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={action.busy}>
            Rotate secret
          </button>
          <button
            type="button"
            class="secondary"
            disabled={action.busy}
            onClick={() =>
              void act("rotate", async () => {
                const rotated = await api.call("rotateCredential", {
                  params: { id: sub.id },
                  body: { kind: "token" },
                });
                if ("token" in rotated) setShown({ label: "New bearer token", value: rotated.token });
                return "New token made; it replaces the old one at once.";
              })
            }
          >
            Rotate token
          </button>
          {feedback("rotate")}
        </form>
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void act("recover", async () => {
              const iso = new Date(since).toISOString();
              const { requeued } = await api.call("recoverSubscription", {
                params: { id: sub.id },
                body: { since: iso },
              });
              return `${requeued} failed deliveries since ${iso} are queued again.`;
            });
          }}
        >
          <h2>Recover since</h2>
          <label for="since">Re-send failed deliveries created since (your local time)</label>
          <input
            id="since"
            type="datetime-local"
            required
            value={since}
            onInput={(e) => setSince((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={action.busy}>
            Recover
          </button>
          {feedback("recover")}
        </form>
      </div>
    </>
  );
}

/** Deliveries with filters and cursor pages, updated live. */
// GET /deliveries filters by state, subscription and message, not by event type (its query schema has no such
// field): a delivery's type is its message's, shown on the delivery's page.
export function DeliveriesPage({ api, params }: { api: SenderApi; params: URLSearchParams }) {
  const filter = {
    state: DELIVERY_STATES.find((state) => state === params.get("state")),
    subscriptionId: params.get("subscriptionId") ?? "",
    messageId: params.get("messageId") ?? "",
  };
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<{ data: Delivery[]; nextCursor: string | null } | null>(null);
  const [subs, setSubs] = useState<Subscription[]>([]);
  const [error, setError] = useState<string | null>(null);
  const cursor = cursors.at(-1) ?? null;
  const key = params.toString();
  usePoll(
    async () => {
      try {
        setPage(
          await api.call("listDeliveries", {
            query: {
              ...(filter.state && { state: filter.state }),
              ...(filter.subscriptionId && { subscriptionId: filter.subscriptionId }),
              ...(filter.messageId && { messageId: filter.messageId }),
              ...(cursor && { cursor }),
              limit: "25",
            },
          }),
        );
        setError(null);
      } catch (e) {
        setError((e as Error).message);
      }
    },
    POLL_MS,
    [key, cursor],
  );
  usePoll(async () => setSubs((await api.call("listSubscriptions", {})).data), POLL_MS * 15, []);
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setCursors([null]);
    location.hash = `#/deliveries${next.toString() ? `?${next}` : ""}`;
  };
  return (
    <>
      <h1>Deliveries</h1>
      <p class="muted">Updates every 2 seconds while this tab is visible.</p>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <div>
          <label for="f-state">State</label>
          <select
            id="f-state"
            value={filter.state ?? ""}
            onChange={(e) => setFilter("state", (e.target as HTMLSelectElement).value)}
          >
            <option value="">any</option>
            {DELIVERY_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-sub">Subscription</label>
          <select
            id="f-sub"
            value={filter.subscriptionId}
            onChange={(e) => setFilter("subscriptionId", (e.target as HTMLSelectElement).value)}
          >
            <option value="">any</option>
            {subs.map((s) => (
              <option key={s.id} value={s.id}>
                {s.id} — {s.url}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-message">Message id</label>
          <input
            id="f-message"
            value={filter.messageId}
            placeholder="msg_…"
            onChange={(e) => setFilter("messageId", (e.target as HTMLInputElement).value.trim())}
          />
        </div>
      </form>
      <ErrorNote error={error} />
      {page === null ? (
        <p>Loading…</p>
      ) : page.data.length === 0 ? (
        <Empty>
          {key
            ? "No delivery matches these filters: clear a filter to see more."
            : "No deliveries yet: add a subscription, then publish an event (here under Publish, or `plant-store publish`)."}
        </Empty>
      ) : (
        <DeliveryTable deliveries={page.data} />
      )}
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors([null])}>
          Newest
        </button>
        <button
          type="button"
          disabled={cursors.length === 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          disabled={!page?.nextCursor}
          onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}
        >
          Older
        </button>
      </nav>
    </>
  );
}

function DeliveryTable({ deliveries }: { deliveries: Delivery[] }) {
  return (
    <TableWrap label="Deliveries">
      <thead>
        <tr>
          <th scope="col">Id</th>
          <th scope="col">State</th>
          <th scope="col">Subscription</th>
          <th scope="col">Message</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.id} data-delivery={d.id}>
            <td>
              <a href={`#/deliveries/${d.id}`}>{d.id}</a>
            </td>
            <td>
              <StateBadge state={d.state} />
            </td>
            <td>
              <a href={`#/subscriptions/${d.subscriptionId}`}>{d.subscriptionId}</a>
            </td>
            <td class="mono">{d.messageId}</td>
            <td>{d.attempts}</td>
            <td class="wrap">{d.lastStatus ?? d.lastError ?? "—"}</td>
            <td>
              <Time at={d.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </TableWrap>
  );
}

/** One delivery: its message, its attempts (live), and resend. */
export function DeliveryPage({ api, id, types }: { api: SenderApi; id: string; types: EventType[] }) {
  const [delivery, setDelivery] = useState<Delivery | null>(null);
  const [attempts, setAttempts] = useState<Attempt[]>([]);
  const [message, setMessage] = useState<Message | null>(null);
  const [error, setError] = useState<string | null>(null);
  const action = useAction();
  const [done, setDone] = useState("");
  usePoll(
    async () => {
      try {
        const found = await api.call("getDelivery", { params: { id } });
        setDelivery(found);
        setAttempts((await api.call("listAttempts", { params: { id } })).data);
        if (!message || message.id !== found.messageId) setMessage(await api.message(found.messageId));
        setError(null);
      } catch (e) {
        setError((e as Error).message);
      }
    },
    POLL_MS,
    [id],
  );
  if (!delivery) return error ? <ErrorNote error={error} /> : <p>Loading…</p>;
  return (
    <>
      <h1>Delivery {delivery.id}</h1>
      <ErrorNote error={error} />
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
      <p>
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              const again = await api.call("resendDelivery", { params: { id: String(delivery.id) } });
              setDelivery(again);
              setDone("Queued again: the worker sends it now.");
            })
          }
        >
          Resend
        </button>{" "}
        <span role="status">{done}</span>
      </p>
      <ErrorNote error={action.error} />
      <section aria-labelledby="attempts">
        <h2 id="attempts">Attempts ({attempts.length})</h2>
        {attempts.length === 0 ? (
          <Empty>No attempt yet: the worker picks it up when it is due.</Empty>
        ) : (
          <TableWrap label="Attempts">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col">Response (first bytes)</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a) => (
                <tr key={a.attempt} data-attempt={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>
                    <Time at={a.attemptedAt} />
                  </td>
                  <td>{a.status ?? "—"}</td>
                  <td>{a.latencyMs === null ? "—" : `${a.latencyMs} ms`}</td>
                  <td class="wrap mono">{a.responseBody ?? ""}</td>
                  <td class="wrap">{a.error ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        )}
      </section>
      {message && (
        <section aria-labelledby="payload">
          <h2 id="payload">Payload</h2>
          <p class="muted">
            Published <Time at={message.createdAt} />
            {message.idempotencyKey && ` with Idempotency-Key ${message.idempotencyKey}`}.
          </p>
          <JsonText text={message.payload} label="Payload as published" />
        </section>
      )}
    </>
  );
}

/** An event type's first example as JSON text to start from (the document's example, re-printed). */
function exampleOf(type: EventType | undefined): string {
  const example = type?.examples[0];
  return example ? JSON.stringify(example.value, null, 2) : "{}";
}

/** Publishes one event of a type the sender publishes, as typed. */
export function PublishPage({ api, types }: { api: SenderApi; types: EventType[] }) {
  const [chosen, setChosen] = useState<string | null>(null);
  const type = types.find((t) => t.type === chosen) ?? types[0];
  const [payload, setPayload] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const action = useAction();
  const text = payload ?? exampleOf(type);
  return (
    <>
      <h1>Publish an event</h1>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const published = await api.call("publishEvent", {
              body: text,
              query: type ? { type: type.type } : {},
            });
            setResult(
              `Published ${published.messageId}: ${published.deliveries} ${published.deliveries === 1 ? "delivery" : "deliveries"}${published.duplicate ? " (a duplicate of an earlier publish)" : ""}.`,
            );
          });
        }}
      >
        {types.length > 1 && (
          <>
            <label for="publish-type">Event type</label>
            <select
              id="publish-type"
              value={type?.type}
              onChange={(e) => {
                setChosen((e.target as HTMLSelectElement).value);
                setPayload(null); // start from the new type's example
                setResult(null);
              }}
            >
              {types.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.name}
                </option>
              ))}
            </select>
          </>
        )}
        <label for="payload">{type?.name ?? "Event"} payload (JSON; sent exactly as typed)</label>
        <textarea
          id="payload"
          rows={8}
          value={text}
          onInput={(e) => setPayload((e.target as HTMLTextAreaElement).value)}
        />
        <button type="submit" disabled={action.busy}>
          Publish
        </button>
        <ErrorNote error={action.error} />
        <p role="status" class="ok">
          {result ?? ""}
        </p>
        {result && (
          <p>
            <a href="#/deliveries">See its deliveries</a>
          </p>
        )}
      </form>
    </>
  );
}
