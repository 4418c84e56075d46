import { useState } from "preact/hooks";
import { Health } from "../health.js";
import { usePoll } from "../hooks.js";
import { POLL_MS } from "../poll.js";
import { Empty, ErrorNote } from "../ui.js";
import { OutcomeChart } from "./outcome-chart.js";
import type { Delivery, SenderApi } from "./sender-api.js";

const HOUR_MS = 3_600_000;
/** The chart reads at most `MAX_PAGES` pages of `PAGE_SIZE` deliveries: a bound on one poll's work. */
const MAX_PAGES = 10;
const PAGE_SIZE = "1000";

/** The deliveries created in the last hour, newest first: pages are read until one reaches past the hour. */
async function lastHour(api: SenderApi): Promise<Delivery[]> {
  const since = Date.now() - HOUR_MS;
  const found: Delivery[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result: { data: Delivery[]; nextCursor: string | null } = await api.call("listDeliveries", {
      query: { limit: PAGE_SIZE, ...(cursor && { cursor }) },
    });
    found.push(...result.data);
    const last = result.data.at(-1);
    cursor = result.nextCursor;
    if (!cursor || !last || Date.parse(last.createdAt) < since) break;
  }
  return found;
}

/**
 * Overview: store health, deliveries by outcome over the last hour, and publishing.
 *
 * @example
 * ```tsx
 * <SenderOverview api={createSenderApi(token)} />
 * ```
 */
export function SenderOverview({ api }: { api: SenderApi }) {
  const [recent, setRecent] = useState<Delivery[] | null>(null);
  const [now, setNow] = useState(Date.now());
  const { error } = usePoll(
    async () => {
      setRecent(await lastHour(api));
      setNow(Date.now());
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
          error ? null : (
            <p>Loading…</p>
          )
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
