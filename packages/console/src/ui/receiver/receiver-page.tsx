import { useMemo, useState } from "preact/hooks";
import { type EventType, typeName } from "../api.js";
import { Health } from "../health.js";
import { Empty, ErrorNote } from "../ui.js";
import { EventDetail } from "./event-detail.js";
import { EventFilters } from "./event-filters.js";
import { EventTable } from "./event-table.js";
import type { ReceivedEvent, ReceiverApi } from "./receiver-api.js";
import { useEvents } from "./use-events.js";

/** The events whose webhook id or payload contains `text` (any case). */
function matching(events: ReceivedEvent[] | null, text: string): ReceivedEvent[] {
  const needle = text.trim().toLowerCase();
  return (events ?? []).filter(
    (e) => !needle || e.webhookId.toLowerCase().includes(needle) || e.payload.toLowerCase().includes(needle),
  );
}

/** What there is none of yet, by why: nothing of this type, nothing at all, or nothing matching the text. */
function NoEvents({ type, types, filtered }: { type: string; types: EventType[]; filtered: boolean }) {
  if (filtered) return <Empty>No loaded event matches the filter: clear it, or load older events.</Empty>;
  if (type) return <Empty>No {typeName(type, types)} events yet: choose "any" to see the others.</Empty>;
  return (
    <Empty>
      No events yet: point a sender at this receiver's{" "}
      <code>{types.map((t) => t.path).join(", ") || "/plant/webhook"}</code> (
      <code>plant-store subscriptions add &lt;url&gt;</code>), or send one with <code>plant-store send</code>.
      They appear here as they arrive.
    </Empty>
  );
}

/**
 * The receiver: store health, and its events, live from `/events/stream`, with older pages on demand.
 *
 * @example
 * ```tsx
 * <ReceiverPage api={createReceiverApi(token)} types={types} />
 * ```
 */
export function ReceiverPage({ api, types }: { api: ReceiverApi; types: EventType[] }) {
  const [selected, setSelected] = useState<number | null>(null);
  const [text, setText] = useState("");
  const [type, setType] = useState("");
  const { events, hasOlder, live, error, loadOlder } = useEvents(api, type);
  const shown = useMemo(() => matching(events, text), [events, text]);
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
        <EventFilters text={text} type={type} types={types} onText={setText} onType={setType} />
        {events === null ? (
          error ? null : (
            <p>Loading…</p>
          )
        ) : shown.length === 0 ? (
          <NoEvents type={type} types={types} filtered={events.length > 0} />
        ) : (
          <EventTable events={shown} types={types} selected={selected} onSelect={setSelected} />
        )}
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={!hasOlder} onClick={() => void loadOlder()}>
            Load older events
          </button>
        </nav>
      </section>
      {current && <EventDetail event={current} types={types} api={api} />}
    </>
  );
}
