import { useState } from "preact/hooks";
import type { CardProps } from "./card-actions.js";

/** A credential just made, to be shown this once. */
export interface ShownOnce {
  label: string;
  value: string;
}

/**
 * Rotates the signing secret (the old one keeps signing for a grace period) or the bearer token (replaced at once);
 * `onShown` gets the new value.
 *
 * @example
 * ```tsx
 * <RotateCard api={api} sub={sub} cards={cards} onShown={setShown} />
 * ```
 */
export function RotateCard({
  api,
  sub,
  cards,
  onShown,
}: CardProps & { onShown: (shown: ShownOnce) => void }) {
  const [grace, setGrace] = useState("86400");
  const rotateSecret = () =>
    cards.act("rotate", async () => {
      const rotated = await api.call("rotateCredential", {
        params: { id: sub.id },
        body: { kind: "secret", graceSeconds: Number(grace) },
      });
      if ("secret" in rotated) onShown({ label: "New signing secret", value: rotated.secret });
      return `New secret made; the old one still signs for ${grace} seconds.`;
    });
  const rotateToken = () =>
    cards.act("rotate", async () => {
      const rotated = await api.call("rotateCredential", { params: { id: sub.id }, body: { kind: "token" } });
      if ("token" in rotated) onShown({ label: "New bearer token", value: rotated.token });
      return "New token made; it replaces the old one at once.";
    });
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void rotateSecret();
      }}
    >
      <h2>Rotate the signing secret</h2>
      <label for="grace">Old secret kept for (seconds, up to 604800)</label>
      <input
        id="grace"
        type="number"
        min={0}
        max={604800}
        required
        value={grace}
        onInput={(e) => setGrace((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={cards.busy}>
        Rotate secret
      </button>
      <button type="button" class="secondary" disabled={cards.busy} onClick={() => void rotateToken()}>
        Rotate token
      </button>
      {cards.feedback("rotate")}
    </form>
  );
}
