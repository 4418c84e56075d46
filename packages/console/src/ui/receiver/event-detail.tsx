import { type EventType, typeName } from "../api.js";
import { JsonText, TableWrap, Time } from "../ui.js";
import { EventForwards } from "./event-forwards.js";
import type { ReceivedEvent, ReceiverApi } from "./receiver-api.js";

/**
 * One event: its type, webhook id, time, payload exactly as received, stored headers, and its forwards.
 *
 * @example
 * ```tsx
 * <EventDetail event={event} types={types} api={api} />
 * ```
 */
export function EventDetail({
  event,
  types,
  api,
}: {
  event: ReceivedEvent;
  types: EventType[];
  api: ReceiverApi;
}) {
  return (
    <section class="card" aria-labelledby="event-detail">
      <h2 id="event-detail">Event {event.seq}</h2>
      <dl class="facts">
        <dt>Event type</dt>
        <dd>
          {typeName(event.type, types)} <span class="muted mono">{event.type}</span>
        </dd>
        <dt>Webhook id</dt>
        <dd class="mono">{event.webhookId}</dd>
        <dt>Received</dt>
        <dd>
          <Time at={event.receivedAt} />
        </dd>
      </dl>
      <EventForwards api={api} webhookId={event.webhookId} />
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
