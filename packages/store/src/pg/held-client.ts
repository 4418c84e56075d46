import type { Pool, PoolClient } from "pg";

/**
 * A pooled connection held for several statements (a transaction). pg emits `error` on a client whose connection
 * ends unexpectedly (the server restarted, an administrator ended the backend), with or without a query running, and
 * the pool listens for it only while the client is idle in the pool: unheard, the event would crash the process.
 * Here it is heard while the connection is held; the statement in flight fails on its own, and `release` discards a
 * connection that failed instead of handing it to the next caller.
 *
 * @example
 * ```ts
 * const held = await holdClient(pool);
 * try { await held.client.query("SELECT 1"); } finally { held.release(); }
 * ```
 */
export async function holdClient(pool: Pool): Promise<{ client: PoolClient; release(broken?: Error): void }> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  client.on("error", onError);
  return {
    client,
    release(broken) {
      client.off("error", onError);
      client.release(broken ?? lost);
    },
  };
}
