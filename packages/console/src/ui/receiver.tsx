import { useEffect, useMemo, useState } from "preact/hooks";
import { type Api, ApiError, type ReceivedEvent } from "./api.js";
import { eventTypes } from "./event-types.js";
import { Health } from "./sender.js";
import { Empty, ErrorNote, JsonText, TableWrap, Time } from "./ui.js";

const PAGE = 25;
const EVENT_TYPE_HEADER = "webhook-event-type";

/** The receiver: store health, and its events, live from `/events/stream`, with older pages on demand. */
export function ReceiverPage({ api }: { api: Api }) {
  const [events, setEvents] = useState<ReceivedEvent[] | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const [live, setLive] = useState<string>("Connecting…");
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [text, setText] = useState("");
  const [type, setType] = useState("");
  const types = eventTypes();

  useEffect(() => {
    const controller = new AbortController();
    (async () => {
      try {
        const first = await api.receiver.events({ limit: PAGE });
        setEvents(first.data);
        setOlder(first.nextCursor);
        await api.receiver.stream({
          after: first.data[0]?.seq ?? 0, // from the first page on: nothing stored between the two requests is missed
          signal: controller.signal,
          onEvent: (event) =>
            setEvents((current) =>
              current?.some((e) => e.seq === event.seq) ? current : [event, ...(current ?? [])],
            ),
          onState: (state, why) =>
            setLive(
              state === "live"
                ? "Live: new events appear here as they are stored."
                : `Reconnecting… ${why ?? ""}`,
            ),
        });
      } catch (e) {
        if (!controller.signal.aborted) {
          setError((e as Error).message);
          setLive(e instanceof ApiError && e.status === 401 ? "Stopped: log in again." : "Stopped.");
        }
      }
    })();
    return () => controller.abort();
  }, [api]);

  const shown = useMemo(() => {
    const needle = text.trim().toLowerCase();
    return (events ?? []).filter(
      (e) =>
        (!type || (e.headers[EVENT_TYPE_HEADER] ?? types[0]?.id) === type) &&
        (!needle || e.webhookId.toLowerCase().includes(needle) || e.payload.toLowerCase().includes(needle)),
    );
  }, [events, text, type]);
  const current = events?.find((e) => e.seq === selected) ?? null;

  return (
    <>
      <h1>Receiver</h1>
      <Health api={api} />
      <section aria-labelledby="events">
        <h2 id="events">Events</h2>
        <p role="status" class="muted">
          {live}
        </p>
        <ErrorNote error={error} />
        <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
          <div>
            <label for="f-text">Webhook id or payload contains</label>
            <input id="f-text" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          </div>
          {types.length > 1 && (
            <div>
              <label for="f-type">Event type</label>
              <select
                id="f-type"
                value={type}
                onChange={(e) => setType((e.target as HTMLSelectElement).value)}
              >
                <option value="">any</option>
                {types.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </div>
          )}
        </form>
        {events === null ? (
          error ? null : (
            <p>Loading…</p>
          )
        ) : events.length === 0 ? (
          <Empty>
            No events yet: point a sender at this receiver's <code>/plant/webhook</code> (
            <code>plant-store subscriptions add &lt;url&gt;</code>), or send one with{" "}
            <code>plant-store send</code>. They appear here as they arrive.
          </Empty>
        ) : shown.length === 0 ? (
          <Empty>No loaded event matches the filter: clear it, or load older events.</Empty>
        ) : (
          <TableWrap label="Events">
            <thead>
              <tr>
                <th scope="col">Seq</th>
                <th scope="col">Webhook id</th>
                <th scope="col">Received</th>
                <th scope="col">Payload</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.seq} data-seq={e.seq} class={e.seq === selected ? "selected" : ""}>
                  <td>
                    <button
                      type="button"
                      class="link"
                      aria-pressed={e.seq === selected}
                      onClick={() => setSelected(e.seq === selected ? null : e.seq)}
                    >
                      {e.seq}
                    </button>
                  </td>
                  <td class="mono">{e.webhookId}</td>
                  <td>
                    <Time at={e.receivedAt} />
                  </td>
                  <td class="mono wrap">
                    {e.payload.length > 80 ? `${e.payload.slice(0, 80)}…` : e.payload}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        )}
        <nav class="pager" aria-label="Pages">
          <button
            type="button"
            disabled={!older}
            onClick={async () => {
              try {
                const page = await api.receiver.events({ limit: PAGE, cursor: older });
                setEvents((current) => [...(current ?? []), ...page.data]);
                setOlder(page.nextCursor);
              } catch (e) {
                setError((e as Error).message);
              }
            }}
          >
            Load older events
          </button>
        </nav>
      </section>
      {current && <EventDetail event={current} />}
    </>
  );
}

function EventDetail({ event }: { event: ReceivedEvent }) {
  return (
    <section class="card" aria-labelledby="event-detail">
      <h2 id="event-detail">Event {event.seq}</h2>
      <dl class="facts">
        <dt>Webhook id</dt>
        <dd class="mono">{event.webhookId}</dd>
        <dt>Received</dt>
        <dd>
          <Time at={event.receivedAt} />
        </dd>
      </dl>
      <h3>Payload, exactly as received</h3>
      <JsonText text={event.payload} label="Payload as received" />
      <h3>Headers</h3>
      <TableWrap label="Headers">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(event.headers).map(([name, value]) => (
            <tr key={name}>
              <td class="mono">{name}</td>
              <td class="mono wrap">{value}</td>
            </tr>
          ))}
        </tbody>
      </TableWrap>
    </section>
  );
}
