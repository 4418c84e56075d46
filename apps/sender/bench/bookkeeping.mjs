// The outbox's bookkeeping alone, no HTTP: the same claims and outcomes the sender's worker commits for each delivery
// (a claim with a lease, an attempt and an outcome recorded), as fast as the store takes them. Used by run.mjs on its
// main thread, and on a worker thread (bookkeeping-worker.mjs) beside the raw loop.
import { join } from "node:path";
import { createSecret, createToken } from "@plant-store/core";
import { createSender } from "../dist/index.js";

/** Deliveries in flight, as in the sender's default configuration. */
export const CONCURRENCY = 64;
/** The i-th New Plant body of the bench. */
export const body = (i) => `{"id":${i + 1},"name":"Monstera deliciosa","tag":"tropical"}`;

/**
 * Fills a new SQLite outbox with `n` messages for one subscription; `run()` then claims and completes them all, like
 * the worker at 64 in flight (claims of a quarter of the slots, outcomes committed in groups).
 */
export async function prepareBookkeeping(dir, name, n) {
  const token = createToken();
  const sender = await createSender({ adminTokens: [token], store: join(dir, `${name}.db`), worker: false });
  const { store } = sender;
  await store.subscriptions.create({
    url: "http://127.0.0.1:9/plant/webhook",
    token,
    secrets: [createSecret()],
  });
  for (let i = 0; i < n; i++) await store.outbox.publish(body(i));
  const attempt = { status: 200, latencyMs: 1, responseBody: null, error: null };
  return {
    async run() {
      await Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (;;) {
            const claimed = await store.outbox.claim(CONCURRENCY / 4, {
              leaseMs: 30_000,
              workerId: `bench-${lane}`,
            });
            if (claimed.length === 0) return;
            await Promise.all(claimed.map((d) => store.outbox.record(d, { kind: "delivered", ...attempt })));
          }
        }),
      );
    },
    close: () => sender.close(),
  };
}
