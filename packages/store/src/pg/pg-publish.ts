import type { PublishOptions, PublishResult } from "../api/outbox.js";
import { StoreConflictError } from "../errors.js";
import { applicationNotFound, scopedIdempotencyKey } from "../shared/application-rules.js";
import { checkReplay, type PreparedEvent, prepareEvent } from "../shared/prepare-event.js";
import { checkIdempotencyKey, checkTraceContext } from "../shared/validate.js";
import { type PgContext, query } from "./context.js";
import { publishSql, type StoredMessage, storedByKeySql } from "./outbox-sql.js";
import { pgGroupPublisher } from "./pg-publish-group.js";

/**
 * The PostgreSQL outbox's `publish`: ONE statement inserts the message and fans it out (`publishSql`); a replayed
 * idempotency key answers like the original call. Without `tx` (and unless `groupCommit: false`), the publishes of
 * one event-loop turn (and those arriving while the previous group commits) are group-committed: ONE statement
 * inserts and fans out all of them (`publishManySql`, one commit, one notification) and each call is answered once
 * that statement has committed. Each event is still checked alone before it joins a group, and a reused key is
 * judged per call: an invalid event or a conflicting key fails only its own call.
 *
 * @example
 * ```ts
 * const { publish } = pgPublisher(ctx);
 * await publish({ id: 1, name: "Fern" }, { tx: client }); // inside the caller's BEGIN … COMMIT
 * ```
 */
export function pgPublisher(ctx: PgContext): {
  publish: (event: unknown, options?: PublishOptions) => Promise<PublishResult>;
  drain: () => Promise<void>;
} {
  const statement = publishSql(ctx.s);
  const toApplication = publishSql(ctx.s, true);
  const group = pgGroupPublisher(ctx);
  const publish = async (event: unknown, options: PublishOptions = {}): Promise<PublishResult> => {
    const checkedKey =
      options.idempotencyKey === undefined ? null : checkIdempotencyKey(options.idempotencyKey);
    const prepared = prepareEvent(event, options);
    const traceContext = checkTraceContext(options.traceContext);
    if (options.tx === undefined && ctx.options.groupCommit) {
      const application = options.application ?? null;
      const done = await group.submit({ key: checkedKey, prepared, traceContext, application });
      if (done.missing) throw applicationNotFound(application as string);
      if (done.unread) throw done.unread.error;
      if (done.id !== undefined)
        return {
          messageId: done.id,
          duplicate: false,
          deliveries: done.deliveries,
          createdAt: new Date(done.at),
        };
      return replayOf(done.existing, prepared);
    }
    const applicationId =
      options.application === undefined ? null : await pgApplicationId(ctx, options.application, options);
    const key = scopedIdempotencyKey(checkedKey, applicationId);
    const at = ctx.options.now();
    const values = [
      ctx.nextId(),
      key,
      prepared.body,
      at,
      ctx.channels.outbox,
      prepared.eventType,
      traceContext,
    ];
    if (applicationId !== null) values.push(applicationId);
    const [row] = await query<{ id: string | null; deliveries: number }>(
      ctx,
      applicationId === null ? statement : toApplication,
      values,
      options.tx,
    );
    if (row?.id)
      return { messageId: row.id, duplicate: false, deliveries: row.deliveries, createdAt: new Date(at) };
    return replayed(ctx, key, prepared, options);
  };
  return { publish, drain: () => group.drain() };
}

/** The id of the application a publish names (by id or uid); `not_found` when there is none. */
async function pgApplicationId(
  ctx: PgContext,
  application: string,
  options: PublishOptions,
): Promise<string> {
  const [found] = await query<{ id: string }>(
    ctx,
    // By id (`app_…`) or by uid (which never starts with `app_`): each through its own unique index.
    `SELECT id FROM ${ctx.s}.applications WHERE ${application.startsWith("app_") ? "id" : "uid"} = $1`,
    [application],
    options.tx,
  );
  if (!found) throw applicationNotFound(application);
  return found.id;
}

/** A replay answers like the original: its fan-out count, read through deliveries_message_idx. */
async function replayed(
  ctx: PgContext,
  key: string | null,
  prepared: ReturnType<typeof prepareEvent>,
  options: PublishOptions,
): Promise<PublishResult> {
  const [existing] = await query<StoredMessage>(ctx, storedByKeySql(ctx.s, "= $1"), [key], options.tx);
  return replayOf(existing, prepared);
}

/** The answer to a publish whose key was stored before: that message, if it is the same event; else a conflict. */
function replayOf(existing: StoredMessage | undefined, prepared: PreparedEvent): PublishResult {
  if (!existing) {
    throw new StoreConflictError(
      "idempotency_conflict",
      "This idempotency key was already used for a different event; use a new key.",
    );
  }
  checkReplay(existing, prepared);
  return {
    messageId: existing.id,
    duplicate: true,
    deliveries: existing.deliveries,
    createdAt: new Date(Number(existing.created_at)),
  };
}
