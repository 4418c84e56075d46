import { createHash } from "node:crypto";
import { createMessageIdGenerator } from "@plant-store/core";
import type pg from "pg";
import type { Store } from "../api/store.js";
import type { OpenStoreOptions, ResolvedOptions } from "../options.js";
import { consume } from "../shared/consume.js";
import { ForwardGate } from "../shared/forward-gate.js";
import { Notifier } from "../shared/notifier.js";
import { RateLimitedGate } from "../shared/rate-limited-gate.js";
import type { SecretBox } from "../shared/secret-box.js";
import type { PgContext } from "./context.js";
import { PgListener } from "./listener.js";
import { quoteIdent } from "./migrations.js";
import { createPgApplications } from "./pg-applications.js";
import { createPgDestinations } from "./pg-destinations.js";
import { createPgInbox } from "./pg-inbox.js";
import { pingPg, purgePg } from "./pg-maintenance.js";
import { createPgOutbox } from "./pg-outbox.js";
import { createPgPool, migrateAtOpen, pgListenerConfig, pgSchema } from "./pg-pool.js";
import { createPgSubscriptions } from "./pg-subscriptions.js";

/** NOTIFY channel names: short (identifiers stop at 63 bytes) and distinct per schema. */
export function pgChannels(schema: string): { inbox: string; outbox: string } {
  const tag = createHash("sha256").update(schema).digest("hex").slice(0, 12);
  return { inbox: `plant_store_${tag}_inbox`, outbox: `plant_store_${tag}_outbox` };
}

/**
 * Opens a PostgreSQL store: a pool (or the caller's), migrations under an advisory lock, and a
 * LISTEN connection started on first use.
 *
 * @example
 * ```ts
 * const store = await openPgStore({ url: "postgres://localhost/app", schema: "webhooks" }, resolveOptions({}), box);
 * ```
 */
export async function openPgStore(
  options: OpenStoreOptions,
  resolved: ResolvedOptions,
  box: SecretBox,
): Promise<Store> {
  const schema = pgSchema(options);
  const ownsPool = options.pool === undefined;
  const pool = options.pool ?? createPgPool(options, resolved);
  await migrateAtOpen(pool, ownsPool, schema, options, resolved);
  const closing = new AbortController();
  const ctx = pgContext(pool, schema, pgListenerConfig(options, pool), resolved, box, closing.signal);
  const inbox = createPgInbox(ctx);
  const outbox = createPgOutbox(ctx);
  const destinations = createPgDestinations(ctx);
  let closed: Promise<void> | undefined;
  return {
    backend: "postgres",
    inbox: { ...inbox, consume: (options) => consume({ destinations, outbox }, options) },
    subscriptions: createPgSubscriptions(ctx),
    applications: createPgApplications(ctx),
    outbox,
    destinations,
    ping: () => pingPg(ctx),
    purge: (options) => purgePg(ctx, options),
    close() {
      closed ??= (async () => {
        await inbox.drain();
        await outbox.drain();
        closing.abort();
        await ctx.listener.stop();
        if (ownsPool) await pool.end();
      })();
      return closed;
    },
  };
}

/** The context the inbox, subscriptions and outbox share, with the notifiers the LISTEN connection feeds. */
function pgContext(
  pool: pg.Pool,
  schema: string,
  listenerConfig: pg.ClientConfig,
  resolved: ResolvedOptions,
  box: SecretBox,
  closed: AbortSignal,
): PgContext {
  const channels = pgChannels(schema);
  const inboxSeqs = new Notifier<number[]>();
  const outboxWork = new Notifier<void>();
  const listener = new PgListener(
    listenerConfig,
    new Map([
      [channels.inbox, (payload: string) => inboxSeqs.emit(payload ? [Number(payload)] : [])],
      [channels.outbox, () => outboxWork.emit()],
    ]),
    // Notifications sent while the connection was away are lost: every waiter looks again.
    () => {
      inboxSeqs.emit([]);
      outboxWork.emit();
    },
    resolved.logger,
  );
  return {
    pool,
    s: quoteIdent(schema),
    channels,
    options: resolved,
    box,
    closed,
    inboxSeqs,
    outboxWork,
    forwardGate: new ForwardGate(Date.now),
    rateGate: new RateLimitedGate(Date.now),
    listener,
    nextId: createMessageIdGenerator({ now: resolved.now }),
  };
}
