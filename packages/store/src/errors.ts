import { PlantStoreError } from "@plant-store/core";

/**
 * Base class of every error the store throws. `code` is stable and machine-readable; messages say
 * what went wrong and what to do, and never contain tokens, secrets or encryption keys.
 *
 * @example
 * ```ts
 * import { StoreError } from "@plant-store/store";
 * try { await store.inbox.record(input); } catch (e) {
 *   if (e instanceof StoreError && e.code === "store_unavailable") { reply(503); }
 * }
 * ```
 */
export class StoreError extends PlantStoreError {
  override name = "StoreError";
}

/**
 * The database cannot be reached or written right now (connection refused, disk full, locked,
 * store closed). Transient: apps answer 503 and the sender retries.
 *
 * @example
 * ```ts
 * if (e instanceof StoreUnavailableError) return new Response(null, { status: 503 });
 * ```
 */
export class StoreUnavailableError extends StoreError {
  override name = "StoreUnavailableError";
  constructor(
    message: string,
    options?: {
      cause?: unknown;
      code?: "store_unavailable" | "store_closed" | "store_file_replaced" | "disk_low";
    },
  ) {
    super(options?.code ?? "store_unavailable", message, options);
  }
}

/**
 * The error of every operation on a closed store (`store_closed`), optionally with the driver's error as its cause.
 *
 * @example
 * ```ts
 * if (ctx.closed.aborted) throw storeClosedError();
 * ```
 */
export function storeClosedError(cause?: unknown): StoreUnavailableError {
  return new StoreUnavailableError("The store is closed.", {
    code: "store_closed",
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The caller passed something the store cannot accept (bad URL, empty webhook id, malformed cursor).
 *
 * @example
 * ```ts
 * await store.inbox.list({ cursor: "garbage" }); // throws StoreInputError, code "invalid_cursor"
 * ```
 */
export class StoreInputError extends StoreError {
  override name = "StoreInputError";
}

/**
 * An event given to `outbox.publish` is not a valid New Plant. `kind` is `json` (not JSON) or
 * `schema` (JSON that violates the schema); `issues` name each offending JSON pointer.
 *
 * @example
 * ```ts
 * try { await store.outbox.publish({ name: 1 }); } catch (e) {
 *   if (e instanceof InvalidEventError) console.log(e.issues); // [{ pointer: "/id", ... }, ...]
 * }
 * ```
 */
export class InvalidEventError extends StoreError {
  override name = "InvalidEventError";
  readonly kind: "json" | "schema";
  readonly issues: ReadonlyArray<{ pointer: string; message: string }>;
  constructor(
    kind: "json" | "schema",
    issues: ReadonlyArray<{ pointer: string; message: string }>,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("invalid_event", message, options);
    this.kind = kind;
    this.issues = issues;
  }
}

/** Why one event of a batch was refused: its index, the error code `publish` would give, and its issues. */
export interface BatchProblem {
  index: number;
  code: string;
  message: string;
  /** For `invalid_event`: each offending JSON pointer within the event. */
  issues?: ReadonlyArray<{ pointer: string; message: string }>;
}

/**
 * A `publishMany` batch was refused as a whole (nothing stored): `problems` names every event that is invalid or
 * reuses an idempotency key for a different event, by index, in index order.
 *
 * @example
 * ```ts
 * try { await store.outbox.publishMany(events); } catch (e) {
 *   if (e instanceof InvalidBatchError) for (const p of e.problems) console.log(p.index, p.message);
 * }
 * ```
 */
export class InvalidBatchError extends StoreInputError {
  override name = "InvalidBatchError";
  readonly problems: readonly BatchProblem[];
  constructor(problems: readonly BatchProblem[]) {
    const first = problems[0];
    super(
      "invalid_batch",
      `${problems.length} of the batch's events ${problems.length === 1 ? "is" : "are"} refused, so none is stored; the first, at index ${first?.index}: ${first?.message}`,
    );
    this.problems = problems;
  }
}

/**
 * A record does not exist (`not_found`) or is in a state that forbids the operation
 * (`lease_lost`, `delivery_in_flight`, `subscription_disabled`, `idempotency_conflict`).
 *
 * @example
 * ```ts
 * try { await store.outbox.record(lease, outcome); } catch (e) {
 *   if (e instanceof StoreConflictError && e.code === "lease_lost") { // another worker owns it now
 *   }
 * }
 * ```
 */
export class StoreConflictError extends StoreError {
  override name = "StoreConflictError";
}

/**
 * The store is misconfigured: invalid encryption key, a database written by a newer version,
 * encrypted values without the key to read them.
 *
 * @example
 * ```ts
 * await openStore({ url: ":memory:", encryptionKey: "short" }); // throws, code "invalid_encryption_key"
 * ```
 */
export class StoreConfigError extends StoreError {
  override name = "StoreConfigError";
}
