import { type EventType, typeName } from "../api.js";
import { TableWrap, Time } from "../ui.js";
import type { ReceivedEvent } from "./receiver-api.js";

/** How much of a payload the table shows; the whole of it is in the event's detail. */
const PAYLOAD_PREVIEW = 80;

/**
 * Events, each with a button (its seq) that selects it, or unselects it when selected.
 *
 * @example
 * ```tsx
 * <EventTable events={shown} types={types} selected={selected} onSelect={setSelected} />
 * ```
 */
export function EventTable({
  events,
  types,
  selected,
  onSelect,
}: {
  events: ReceivedEvent[];
  types: EventType[];
  selected: number | null;
  onSelect: (seq: number | null) => void;
}) {
  return (
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
        {events.map((e) => (
          <tr key={e.seq} data-seq={e.seq} class={e.seq === selected ? "selected" : ""}>
            <td>
              <button
                type="button"
                class="link"
                aria-pressed={e.seq === selected}
                onClick={() => onSelect(e.seq === selected ? null : e.seq)}
              >
                {e.seq}
              </button>
            </td>
            <td>{typeName(e.type, types)}</td>
            <td class="mono">{e.webhookId}</td>
            <td>
              <Time at={e.receivedAt} />
            </td>
            <td class="mono wrap">
              {e.payload.length > PAYLOAD_PREVIEW ? `${e.payload.slice(0, PAYLOAD_PREVIEW)}…` : e.payload}
            </td>
          </tr>
        ))}
      </tbody>
    </TableWrap>
  );
}
