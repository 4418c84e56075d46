import { useState } from "preact/hooks";
import type { CardProps } from "./card-actions.js";
import { EndpointFields, endpointBody, NO_ENDPOINT_FIELDS } from "./endpoint-fields.js";

/**
 * Changes a subscription's own fields and endpoint options: what is typed in replaces that field (metadata and
 * headers as a whole); the boxes remove the rate limit or every header. Header values are never shown again.
 *
 * @example
 * ```tsx
 * <EndpointOptionsCard api={api} sub={sub} cards={cards} />
 * ```
 */
export function EndpointOptionsCard({ api, sub, cards }: CardProps) {
  const [fields, setFields] = useState(NO_ENDPOINT_FIELDS);
  const [clear, setClear] = useState({ rateLimit: false, headers: false });
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void cards.act("options", async () => {
          const body = {
            ...endpointBody(fields),
            ...(clear.rateLimit && { rateLimit: null }),
            ...(clear.headers && { headers: null }),
          };
          if (Object.keys(body).length === 0) throw new Error("Type a value to change, or tick a box.");
          await api.call("updateSubscription", { params: { id: sub.id }, body });
          setFields(NO_ENDPOINT_FIELDS);
          setClear({ rateLimit: false, headers: false });
          return "The subscription is changed.";
        });
      }}
    >
      <h2>Details and endpoint options</h2>
      <p class="muted">
        Now: rate limit {sub.rateLimit === null ? "none" : `${sub.rateLimit}/s`}; headers{" "}
        {sub.headerNames.length === 0 ? "none" : sub.headerNames.join(", ")}.
      </p>
      <EndpointFields prefix="edit" text={fields} onChange={setFields} />
      <label class="check">
        <input
          type="checkbox"
          checked={clear.rateLimit}
          onChange={(e) => setClear({ ...clear, rateLimit: (e.target as HTMLInputElement).checked })}
        />{" "}
        Remove the rate limit
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={clear.headers}
          onChange={(e) => setClear({ ...clear, headers: (e.target as HTMLInputElement).checked })}
        />{" "}
        Remove every header
      </label>
      <button type="submit" disabled={cards.busy}>
        Save
      </button>
      {cards.feedback("options")}
    </form>
  );
}
