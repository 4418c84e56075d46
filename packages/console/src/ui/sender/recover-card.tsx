import { useState } from "preact/hooks";
import type { CardProps } from "./card-actions.js";

/**
 * Re-sends the subscription's failed deliveries created since a time (the reader's local time).
 *
 * @example
 * ```tsx
 * <RecoverCard api={api} sub={sub} cards={cards} />
 * ```
 */
export function RecoverCard({ api, sub, cards }: CardProps) {
  const [since, setSince] = useState("");
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void cards.act("recover", async () => {
          const iso = new Date(since).toISOString();
          const { requeued } = await api.call("recoverSubscription", {
            params: { id: sub.id },
            body: { since: iso },
          });
          return `${requeued} failed deliveries since ${iso} are queued again.`;
        });
      }}
    >
      <h2>Recover since</h2>
      <label for="since">Re-send failed deliveries created since (your local time)</label>
      <input
        id="since"
        type="datetime-local"
        required
        value={since}
        onInput={(e) => setSince((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={cards.busy}>
        Recover
      </button>
      {cards.feedback("recover")}
    </form>
  );
}
