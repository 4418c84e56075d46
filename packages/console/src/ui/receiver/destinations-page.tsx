import { useState } from "preact/hooks";
import { usePoll } from "../hooks.js";
import { Empty, ErrorNote, StateBadge, TableWrap, useAction } from "../ui.js";
import type { Destination, ReceiverApi } from "./receiver-api.js";

/** How often the page reads the queues again. */
const POLL_MS = 3000;

/** A lag in words: seconds, minutes or hours. */
function lagText(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** Why a destination is failing, in words. */
function failingText(d: Destination): string {
  const parts = [];
  if (d.state === "disabled") parts.push(`disabled (${d.disabledReason ?? "no reason given"})`);
  if (d.failed > 0) parts.push(`${d.failed} failed forward${d.failed === 1 ? "" : "s"}`);
  return parts.join(", ");
}

/** Failing: disabled (a 410), or holding failed forwards. */
const isFailing = (d: Destination) => d.state === "disabled" || d.failed > 0;

/**
 * The receiver's destinations: each one's state, queue depth, lag and failed forwards (the failing ones first), with
 * pause/resume and replay of the failed forwards.
 *
 * @example
 * ```tsx
 * <DestinationsPage api={createReceiverApi(token)} />
 * ```
 */
export function DestinationsPage({ api }: { api: ReceiverApi }) {
  const [list, setList] = useState<Destination[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const poll = usePoll(async () => setList((await api.call("listDestinations", {})).data), POLL_MS, [api]);
  const action = useAction();
  const act = (what: () => Promise<string>) =>
    action.run(async () => {
      setNote(await what());
      await poll.refresh();
    });
  const failing = (list ?? []).filter(isFailing);
  return (
    <>
      <h1>Destinations</h1>
      <p class="muted">Where this receiver hands its accepted events on, with retries.</p>
      <ErrorNote error={poll.error ?? action.error} />
      <p role="status">{note}</p>
      {failing.length > 0 && (
        <section class="card" aria-labelledby="failing">
          <h2 id="failing">Failing</h2>
          <ul>
            {failing.map((d) => (
              <li key={d.id}>
                <strong>{d.name}</strong>: {failingText(d)}
              </li>
            ))}
          </ul>
        </section>
      )}
      {list === null ? (
        poll.error ? null : (
          <p>Loading…</p>
        )
      ) : list.length === 0 ? (
        <Empty>
          No destinations yet: start the receiver with <code>--forward-to &lt;url&gt;</code>, or run{" "}
          <code>plant-store destinations create &lt;name&gt; &lt;url&gt;</code>.
        </Empty>
      ) : (
        <DestinationTable list={list} busy={action.busy} api={api} act={act} />
      )}
    </>
  );
}

function DestinationTable(props: {
  list: Destination[];
  busy: boolean;
  api: ReceiverApi;
  act: (what: () => Promise<string>) => Promise<void>;
}) {
  const { list, busy, api, act } = props;
  return (
    <TableWrap label="Destinations">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">State</th>
          <th scope="col">Depth</th>
          <th scope="col">Lag</th>
          <th scope="col">Failed</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {list.map((d) => (
          <tr key={d.id} data-destination={d.id}>
            <td>
              {d.name} <span class="muted mono">{d.id}</span>
            </td>
            <td>
              <StateBadge state={d.state} />
            </td>
            <td>{d.depth}</td>
            <td>{lagText(d.lagSeconds)}</td>
            <td>{d.failed}</td>
            <td>
              <DestinationActions d={d} busy={busy} api={api} act={act} />
            </td>
          </tr>
        ))}
      </tbody>
    </TableWrap>
  );
}

/** A destination row's buttons: pause or resume, and replay its failed forwards. */
function DestinationActions(props: {
  d: Destination;
  busy: boolean;
  api: ReceiverApi;
  act: (what: () => Promise<string>) => Promise<void>;
}) {
  const { d, busy, api, act } = props;
  const params = { params: { id: d.id } };
  return (
    <>
      {d.state === "paused" ? (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void act(async () => {
              await api.call("resumeDestination", params);
              return `${d.name} resumed: its queue drains in order.`;
            })
          }
        >
          Resume
        </button>
      ) : (
        <button
          type="button"
          class="secondary"
          disabled={busy || d.state === "disabled"}
          onClick={() =>
            void act(async () => {
              await api.call("pauseDestination", params);
              return `${d.name} paused: events queue until it is resumed.`;
            })
          }
        >
          Pause
        </button>
      )}{" "}
      <button
        type="button"
        class="secondary"
        disabled={busy || d.failed === 0 || !d.enabled}
        onClick={() =>
          void act(async () => {
            const { requeued } = await api.call("replayDestination", {
              ...params,
              body: { failed: true },
            });
            return `${d.name}: ${requeued} failed forward${requeued === 1 ? "" : "s"} queued again.`;
          })
        }
      >
        Replay failed
      </button>
    </>
  );
}
