import { DELIVERY_STATES, type DeliveryState, type Subscription } from "./sender-api.js";

/** What the deliveries list is filtered by; an empty text is no filter. */
export interface DeliveryFilter {
  state: DeliveryState | undefined;
  subscriptionId: string;
  messageId: string;
}

/**
 * The filter in the route's query (`#/deliveries?state=failed`); a state the sender does not know is no filter.
 *
 * @example
 * ```ts
 * filterOf(new URLSearchParams("state=failed")); // { state: "failed", subscriptionId: "", messageId: "" }
 * ```
 */
export function filterOf(params: URLSearchParams): DeliveryFilter {
  return {
    state: DELIVERY_STATES.find((state) => state === params.get("state")),
    subscriptionId: params.get("subscriptionId") ?? "",
    messageId: params.get("messageId") ?? "",
  };
}

/**
 * The filters of the deliveries list; `onChange` gets the query parameter changed and its new value.
 *
 * @example
 * ```tsx
 * <DeliveryFilters filter={filterOf(params)} subs={subs} onChange={setFilter} />
 * ```
 */
export function DeliveryFilters({
  filter,
  subs,
  onChange,
}: {
  filter: DeliveryFilter;
  subs: Subscription[];
  onChange: (name: keyof DeliveryFilter, value: string) => void;
}) {
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
      <div>
        <label for="f-state">State</label>
        <select
          id="f-state"
          value={filter.state ?? ""}
          onChange={(e) => onChange("state", (e.target as HTMLSelectElement).value)}
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
          onChange={(e) => onChange("subscriptionId", (e.target as HTMLSelectElement).value)}
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
          onChange={(e) => onChange("messageId", (e.target as HTMLInputElement).value.trim())}
        />
      </div>
    </form>
  );
}
