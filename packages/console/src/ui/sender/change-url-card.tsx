import { useState } from "preact/hooks";
import type { CardProps } from "./card-actions.js";

/**
 * Changes the subscription's URL (the sender's SSRF guard may refuse it, in words).
 *
 * @example
 * ```tsx
 * <ChangeUrlCard api={api} sub={sub} cards={cards} />
 * ```
 */
export function ChangeUrlCard({ api, sub, cards }: CardProps) {
  const [url, setUrl] = useState<string | null>(null);
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void cards.act("url", async () => {
          await api.call("updateSubscription", {
            params: { id: sub.id },
            body: { url: (url ?? sub.url).trim() },
          });
          setUrl(null);
          return "The URL is changed.";
        });
      }}
    >
      <h2>Change URL</h2>
      <label for="edit-url">New URL</label>
      <input
        id="edit-url"
        type="url"
        required
        value={url ?? sub.url}
        onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={cards.busy}>
        Change URL
      </button>
      {cards.feedback("url")}
    </form>
  );
}
