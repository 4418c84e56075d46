import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, type EventType } from "./api.js";
import type { ReceivedEvent, ReceiverApi } from "./receiver-api.js";
import { Health } from "./sender.js";
import { Empty, ErrorNote, JsonText, TableWrap, Time } from "./ui.js";

const PAGE = 25;

/**
 * The receiver: store health, and its events, live from `/events/stream`, with older pages on demand. The event
 * type filter is the receiver's own (`GET /events?type=`); the live stream carries every type and is filtered here.
 */
export function ReceiverPage({ api, types }: { api: ReceiverApi; types: EventType[] }) {
  const [events, setEvents] = useState<ReceivedEvent[] | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const [live, setLive] = useState<string>("Connecting…");
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [text, setText] = useState("");
  const [type, setType] = useState("");

  useEffect(() => {
    const controller = new AbortController();
    setEvents(null);
    (async () => {
      try {
        // The newest event of any type first, then the page of this type: the stream resumes after the former, so
        // nothing stored between the two requests is missed (an event in both is shown once).
        const newest = type ? ((await api.events({ limit: 1 })).data[0]?.seq ?? 0) : null;
        const first = await api.events({ limit: PAGE, ...(type && { type }) });
        setEvents(first.data);
        setOlder(first.nextCursor);
        await api.stream({
          after: newest ?? first.data[0]?.seq ?? 0,
          signal: controller.signal,
          onEvent: (event) => {
            if (type && event.type !== type) return;
            setEvents((current) =>
              current?.some((e) => e.seq === event.seq) ? current : [event, ...(current ?? [])],
            );
          },
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
  }, [api, type]);

  const shown = useMemo(() => {
    const needle = text.trim().toLowerCase();
    return (events ?? []).filter(
      (e) =>
        !needle || e.webhookId.toLowerCase().includes(needle) || e.payload.toLowerCase().includes(needle),
    );
  }, [events, text]);
  const current = events?.find((e) => e.seq === selected) ?? null;

  return (
    <>
      <h1>Receiver</h1>
      <Health check={api.health} />
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
                  <option key={t.type} value={t.type}>
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
        ) : events.length === 0 && type ? (
          <Empty>No {nameOf(type, types)} events yet: choose "any" to see the others.</Empty>
        ) : events.length === 0 ? (
          <Empty>
            No events yet: point a sender at this receiver's{" "}
            <code>{types.map((t) => t.path).join(", ") || "/plant/webhook"}</code> (
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
                <th scope="col">Type</th>
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
                  <td>{nameOf(e.type, types)}</td>
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
                const page = await api.events({ limit: PAGE, cursor: older, ...(type && { type }) });
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
      {current && <EventDetail event={current} types={types} />}
    </>
  );
}

/** An event type's name, or its id when the receiver does not serve it (any more). */
function nameOf(type: string, types: EventType[]): string {
  return types.find((t) => t.type === type)?.name ?? type;
}

function EventDetail({ event, types }: { event: ReceivedEvent; types: EventType[] }) {
  return (
    <section class="card" aria-labelledby="event-detail">
      <h2 id="event-detail">Event {event.seq}</h2>
      <dl class="facts">
        <dt>Event type</dt>
        <dd>
          {nameOf(event.type, types)} <span class="muted mono">{event.type}</span>
        </dd>
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
