import { useState } from "preact/hooks";
import type { Health as HealthState } from "./api.js";
import { usePoll } from "./hooks.js";
import { POLL_MS } from "./poll.js";
import { ErrorNote } from "./ui.js";

/**
 * `/readyz` in words (either app's: `check` asks it).
 *
 * @example
 * ```tsx
 * <Health check={api.health} />
 * ```
 */
export function Health({ check }: { check: () => Promise<HealthState> }) {
  const [health, setHealth] = useState<HealthState | null>(null);
  const { error } = usePoll(async () => setHealth(await check()), POLL_MS * 5, []);
  return (
    <section aria-labelledby="health">
      <h2 id="health">Store</h2>
      <ErrorNote error={error} />
      {health === null ? (
        error ? null : (
          <p>Checking…</p>
        )
      ) : (
        <p class={health.ready ? "ok" : "error"}>
          <strong>{health.ready ? "Ready." : "Not ready."}</strong> {health.detail}
        </p>
      )}
    </section>
  );
}
