import type { CardProps } from "./card-actions.js";

/**
 * Enables a disabled subscription.
 *
 * @example
 * ```tsx
 * <EnableCard api={api} sub={sub} cards={cards} />
 * ```
 */
export function EnableCard({ api, sub, cards }: CardProps) {
  return (
    <div class="card">
      <h2>Enable</h2>
      <p>Deliveries resume; those that failed while it was off can be re-sent with “Recover”.</p>
      <button
        type="button"
        disabled={cards.busy}
        onClick={() =>
          void cards.act("enable", async () => {
            await api.call("enableSubscription", { params: { id: sub.id } });
            return "Enabled.";
          })
        }
      >
        Enable
      </button>
      {cards.feedback("enable")}
    </div>
  );
}
