import { useState } from "preact/hooks";
import type { CardProps } from "./card-actions.js";

/**
 * Disables an enabled subscription, with an optional reason.
 *
 * @example
 * ```tsx
 * <DisableCard api={api} sub={sub} cards={cards} />
 * ```
 */
export function DisableCard({ api, sub, cards }: CardProps) {
  const [reason, setReason] = useState("");
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void cards.act("disable", async () => {
          await api.call("disableSubscription", {
            params: { id: sub.id },
            body: reason.trim() ? { reason: reason.trim() } : {},
          });
          setReason("");
          return "Disabled: nothing is delivered to it until it is enabled.";
        });
      }}
    >
      <h2>Disable</h2>
      <label for="reason">Reason (optional)</label>
      <input
        id="reason"
        maxLength={1000}
        value={reason}
        onInput={(e) => setReason((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={cards.busy}>
        Disable
      </button>
      {cards.feedback("disable")}
    </form>
  );
}
