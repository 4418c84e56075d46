import { scopedIdempotencyKey } from "../shared/application-rules.js";
import { GroupCommitter } from "../shared/group-commit.js";
import type { PreparedEvent } from "../shared/prepare-event.js";
import { type PgContext, query } from "./context.js";
import { type StoredMessage, storedByKeySql } from "./outbox-sql.js";
import { publishManySql } from "./pg-publish-many.js";

/**
 * One checked publish waiting for its group: its key as published, its bytes and type, its trace and the application
 * it names (by id or uid), which the group looks up with the others in one statement.
 */
export interface GroupedPublish {
  key: string | null;
  prepared: PreparedEvent;
  traceContext: string | null;
  application: string | null;
}

/** What a group wrote for one publish: its new message, or (its key was stored before) the stored one, if found. */
export type GroupedResult =
  | {
      id: string;
      deliveries: number;
      at: number;
      existing?: undefined;
      missing?: undefined;
      unread?: undefined;
    }
  | { id?: undefined; existing: StoredMessage | undefined; missing?: undefined; unread?: undefined }
  | { id?: undefined; existing?: undefined; missing: true; unread?: undefined }
  | { id?: undefined; existing?: undefined; missing?: undefined; unread: { error: unknown } };

/**
 * Group commit of single publishes on PostgreSQL: the publishes of one event-loop turn, and those arriving while
 * a previous group is being written, are written by ONE statement (`publishManySql`: insert, fan-out, one
 * notification), which commits on its own (no BEGIN … COMMIT round trips). A publish whose key is stored already
 * (before, or earlier in the same group) is skipped by the statement; its stored message is then read back, and the
 * caller judges it (the same event: a replay; another: its own conflict). A failed statement fails its group's
 * calls, none of which is stored; a failed read-back fails only the skipped calls (`unread`): the others' messages
 * are committed, and they answer with them.
 *
 * @example
 * ```ts
 * const group = pgGroupPublisher(ctx);
 * const done = await group.submit({ key: null, prepared, traceContext: null, application: null });
 * ```
 */
export function pgGroupPublisher(ctx: PgContext): GroupCommitter<GroupedPublish, GroupedResult> {
  const toAll = publishManySql(ctx.s);
  const toApplications = publishManySql(ctx.s, true);
  const storedSql = storedByKeySql(ctx.s, "= ANY($1::text[])");
  const applicationsSql = `SELECT id, uid FROM ${ctx.s}.applications WHERE id = ANY($1::text[]) OR uid = ANY($1::text[])`;
  const write = async (all: GroupedPublish[]): Promise<GroupedResult[]> => {
    const named = await applicationIds(all);
    const items = all.filter((item) => item.application === null || named.has(item.application));
    const at = ctx.options.now();
    const ids: string[] = [];
    const keys: (string | null)[] = [];
    const bodies: Buffer[] = [];
    const types: string[] = [];
    const traces: (string | null)[] = [];
    const applications: (string | null)[] = [];
    for (const item of items) {
      const applicationId = item.application === null ? null : (named.get(item.application) as string);
      ids.push(ctx.nextId());
      keys.push(scopedIdempotencyKey(item.key, applicationId));
      bodies.push(Buffer.from(item.prepared.body));
      types.push(item.prepared.eventType);
      traces.push(item.traceContext);
      applications.push(applicationId);
    }
    const written = new Map<GroupedPublish, GroupedResult>();
    if (items.length > 0) {
      const scoped = applications.some((id) => id !== null);
      const params = [ids, keys, bodies, types, traces, at, ctx.channels.outbox];
      if (scoped) params.push(applications);
      const rows = await query<{ id: string; deliveries: number }>(
        ctx,
        scoped ? toApplications : toAll,
        params,
      );
      const fresh = new Map(rows.map((row) => [row.id, row.deliveries]));
      const skipped = keys.filter((key, i) => key !== null && !fresh.has(ids[i] as string));
      const read = await readBack(skipped);
      for (const [i, id] of ids.entries()) {
        const deliveries = fresh.get(id);
        written.set(
          items[i] as GroupedPublish,
          deliveries !== undefined
            ? { id, deliveries, at }
            : "error" in read
              ? { unread: read }
              : { existing: read.byKey.get(keys[i] as string) },
        );
      }
    }
    return all.map((item) => written.get(item) ?? { missing: true });
  };
  /** The stored messages of the keys the statement skipped, by key; or the read's error (the group is committed). */
  const readBack = async (
    skipped: (string | null)[],
  ): Promise<{ byKey: Map<string | null, StoredMessage> } | { error: unknown }> => {
    if (skipped.length === 0) return { byKey: new Map() };
    try {
      const stored = await query<StoredMessage>(ctx, storedSql, [[...new Set(skipped)]]);
      return { byKey: new Map(stored.map((row) => [row.idempotency_key, row])) };
    } catch (error) {
      return { error };
    }
  };
  /** The ids of the applications the group's publishes name (by id or uid), in one statement; none when none do. */
  const applicationIds = async (items: GroupedPublish[]): Promise<Map<string, string>> => {
    const names = new Set<string>();
    for (const item of items) if (item.application !== null) names.add(item.application);
    const found = new Map<string, string>();
    if (names.size === 0) return found;
    const rows = await query<{ id: string; uid: string }>(ctx, applicationsSql, [[...names]]);
    for (const row of rows) {
      found.set(row.id, row.id);
      found.set(row.uid, row.id);
    }
    return found;
  };
  // Two groups in flight: one is being written while the next gathers the requests of the turns meanwhile.
  return new GroupCommitter(write, { maxBatch: ctx.options.maxBatchSize, maxInFlight: 2 });
}
