import { useState } from "preact/hooks";
import { usePoll } from "../hooks.js";
import { everyText, POLL_MS } from "../poll.js";
import { Empty, ErrorNote } from "../ui.js";
import { DeliveryFilters, filterOf } from "./delivery-filters.js";
import { DeliveryTable } from "./delivery-table.js";
import type { Delivery, SenderApi, Subscription } from "./sender-api.js";

/** A page of `GET /deliveries`, newest first. */
type DeliveryPage = { data: Delivery[]; nextCursor: string | null };

/** Newest, newer and older pages: `cursors` is the way back, its last entry the page shown. */
function Pager({
  cursors,
  page,
  onCursors,
}: {
  cursors: (string | null)[];
  page: DeliveryPage | null;
  onCursors: (cursors: (string | null)[]) => void;
}) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={cursors.length === 1} onClick={() => onCursors([null])}>
        Newest
      </button>
      <button type="button" disabled={cursors.length === 1} onClick={() => onCursors(cursors.slice(0, -1))}>
        Newer
      </button>
      <button
        type="button"
        disabled={!page?.nextCursor}
        onClick={() => page?.nextCursor && onCursors([...cursors, page.nextCursor])}
      >
        Older
      </button>
    </nav>
  );
}

/**
 * Deliveries with filters and cursor pages, updated live. `GET /deliveries` filters by state, subscription and
 * message, not by event type (its query schema has no such field): a delivery's type is its message's, shown on the
 * delivery's page.
 *
 * @example
 * ```tsx
 * <DeliveriesPage api={api} params={new URLSearchParams("state=failed")} />
 * ```
 */
export function DeliveriesPage({ api, params }: { api: SenderApi; params: URLSearchParams }) {
  const filter = filterOf(params);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<DeliveryPage | null>(null);
  const [subs, setSubs] = useState<Subscription[]>([]);
  const cursor = cursors.at(-1) ?? null;
  const key = params.toString();
  const { error } = usePoll(
    async () => {
      const query = {
        ...(filter.state && { state: filter.state }),
        ...(filter.subscriptionId && { subscriptionId: filter.subscriptionId }),
        ...(filter.messageId && { messageId: filter.messageId }),
        ...(cursor && { cursor }),
        limit: "25",
      };
      setPage(await api.call("listDeliveries", { query }));
    },
    POLL_MS,
    [key, cursor],
  );
  const subsPoll = usePoll(
    async () => setSubs((await api.call("listSubscriptions", {})).data),
    POLL_MS * 15,
    [],
  );
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
      <p class="muted">{`Updates ${everyText(POLL_MS)} while this tab is visible.`}</p>
      <DeliveryFilters filter={filter} subs={subs} onChange={setFilter} />
      <ErrorNote error={error ?? subsPoll.error} />
      {page === null ? (
        error ? null : (
          <p>Loading…</p>
        )
      ) : page.data.length === 0 ? (
        <Empty>
          {key
            ? "No delivery matches these filters: clear a filter to see more."
            : "No deliveries yet: add a subscription, then publish an event (here under Publish, or `plant-store publish`)."}
        </Empty>
      ) : (
        <DeliveryTable deliveries={page.data} />
      )}
      <Pager cursors={cursors} page={page} onCursors={setCursors} />
    </>
  );
}
