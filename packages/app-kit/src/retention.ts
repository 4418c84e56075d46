import { setImmediate as turn } from "node:timers/promises";
import type { Logger } from "pino";

/** Default retention: 30 days, as Svix keeps message payloads and Stripe lets events be retrieved. */
export const DEFAULT_RETENTION_DAYS = 30;

/** Options of {@link startRetention}. */
export interface RetentionOptions {
  /** One bounded batch of deletions older than `before` (the store's `purge`); `more` asks for another. */
  purge: (before: number) => Promise<{ more: boolean }>;
  /** How long data is kept; 0 keeps it forever (nothing runs). */
  retentionMs: number;
  /** How often a purge runs. Default 1 hour (and once shortly after start). */
  intervalMs?: number;
  logger?: Logger;
  now?: () => number;
}

/**
 * Purges data older than the retention period every `intervalMs`, one bounded batch at a time with a turn of the
 * event loop between batches, so webhooks and deliveries are served meanwhile. A failed purge is logged and tried
 * again at the next interval. Returns `stop()`, which waits for a batch in progress.
 *
 * @example
 * ```ts
 * const retention = startRetention({ purge: (before) => store.purge({ before }), retentionMs: 30 * 86_400_000 });
 * await retention.stop();
 * ```
 */
export function startRetention(options: RetentionOptions): { stop(): Promise<void>; run(): Promise<void> } {
  const now = options.now ?? Date.now;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const run = async () => {
    const before = now() - options.retentionMs;
    const deleted: Record<string, number> = {};
    try {
      for (;;) {
        if (stopped) break;
        const batch = await options.purge(before);
        for (const [key, value] of Object.entries(batch as object))
          if (typeof value === "number") deleted[key] = (deleted[key] ?? 0) + value;
        if (!batch.more) break;
        await turn();
      }
      if (Object.values(deleted).some((n) => n > 0))
        options.logger?.info({ ...deleted, before: new Date(before).toISOString() }, "retention: purged");
    } catch (error) {
      options.logger?.warn(
        { error: (error as Error).message },
        "retention: purge failed; trying again later",
      );
    }
  };
  const schedule = () => {
    running = running.then(run);
  };
  if (options.retentionMs <= 0) return { stop: async () => {}, run: async () => {} };
  const first = setTimeout(schedule, 1_000);
  const timer = setInterval(schedule, options.intervalMs ?? 3_600_000);
  first.unref();
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
    run() {
      schedule();
      return running;
    },
  };
}
