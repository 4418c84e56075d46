import { useEffect, useState } from "preact/hooks";
import { Empty, ErrorNote, StateBadge, TableWrap, Time, useAction } from "../ui.js";
import type { EventForwards as Forwards, ReceiverApi } from "./receiver-api.js";

/**
 * An event's forwards, one per destination that takes its type, each with its attempts, and a button that sends the
 * event to that destination again.
 *
 * @example
 * ```tsx
 * <EventForwards api={api} webhookId={event.webhookId} />
 * ```
 */
export function EventForwards({ api, webhookId }: { api: ReceiverApi; webhookId: string }) {
  const [forwards, setForwards] = useState<Forwards | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const load = useAction();
  const replay = useAction();
  const read = () =>
    load.run(async () => setForwards(await api.call("listEventForwards", { params: { id: webhookId } })));
  useEffect(() => void read(), [api, webhookId]);
  return (
    <section aria-labelledby="forwards">
      <h3 id="forwards">Forwards</h3>
      <ErrorNote error={load.error ?? replay.error} />
      <p role="status">{note}</p>
      {forwards && forwards.data.length === 0 && <Empty>No destination takes this event.</Empty>}
      {forwards?.data.map((f) => (
        <div key={f.id} class="card" data-forward={f.id}>
          <p>
            To <span class="mono">{f.destinationId}</span> <StateBadge state={f.state} />{" "}
            <button
              type="button"
              class="secondary"
              disabled={replay.busy || f.state === "pending" || f.state === "leased"}
              onClick={() =>
                void replay.run(async () => {
                  await api.call("replayDestination", {
                    params: { id: f.destinationId },
                    body: { eventId: webhookId },
                  });
                  setNote(`Queued again for ${f.destinationId}.`);
                  await read();
                })
              }
            >
              Replay
            </button>
          </p>
          <TableWrap label={`Attempts to ${f.destinationId}`}>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {f.attemptLog.map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>
                    <Time at={a.attemptedAt} />
                  </td>
                  <td>{a.status ?? "-"}</td>
                  <td>{a.latencyMs} ms</td>
                  <td class="wrap">{a.error ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        </div>
      ))}
    </section>
  );
}
