import { MAX_BATCH_EVENTS } from "@plant-store/core";
import type { BatchEvent, PublishManyOptions, PublishResult } from "../api/outbox.js";
import {
  type BatchProblem,
  InvalidBatchError,
  InvalidEventError,
  StoreError,
  StoreInputError,
} from "../errors.js";
import { type PreparedEvent, prepareEvent, sameEvent } from "./prepare-event.js";
import { checkIdempotencyKey, checkTraceContext } from "./validate.js";

/** One event of a batch to write: checked, with the first index it answers for. */
export interface BatchItem extends PreparedEvent {
  index: number;
  key: string | null;
  traceContext: string | null;
}

/** A checked batch: the events to write (one per key), and for every index the item it answers with. */
export interface PreparedBatch {
  items: BatchItem[];
  /** `answers[i]` is the position in `items` whose result index `i` answers with (a key used twice: the first). */
  answers: number[];
}

/**
 * Checks every event of a `publishMany` batch by `publish`'s rules before anything is written: throws
 * `InvalidBatchError` naming every refused index (a key reused in the batch for a different event is one), or
 * `StoreInputError` (`batch_too_large`) beyond `MAX_BATCH_EVENTS`. A key used again for the same event answers
 * with its first use.
 *
 * @example
 * ```ts
 * prepareBatch([{ event: '{"id":1,"name":"Fern"}', idempotencyKey: "k" }], {}).items.length; // 1
 * ```
 */
export function prepareBatch(events: readonly BatchEvent[], options: PublishManyOptions): PreparedBatch {
  if (!Array.isArray(events))
    throw new StoreInputError("invalid_batch", "publishMany takes an array of events.");
  if (events.length > MAX_BATCH_EVENTS) {
    throw new StoreInputError(
      "batch_too_large",
      `A batch holds at most ${MAX_BATCH_EVENTS} events (this one ${events.length}); split it.`,
    );
  }
  const problems: BatchProblem[] = [];
  const items: BatchItem[] = [];
  const answers: number[] = [];
  const byKey = new Map<string, number>();
  events.forEach((entry, index) => {
    const item = checkOne(entry, index, options, problems);
    if (!item) return;
    const first = item.key === null ? undefined : byKey.get(item.key);
    if (first === undefined) {
      if (item.key !== null) byKey.set(item.key, items.length);
      answers[index] = items.length;
      items.push(item);
    } else if (sameEvent(items[first] as BatchItem, item)) {
      answers[index] = first;
    } else {
      problems.push({
        index,
        code: "idempotency_conflict",
        message: `This idempotency key is used at index ${(items[first] as BatchItem).index} for a different event; use a new key.`,
      });
    }
  });
  if (problems.length > 0) throw new InvalidBatchError(problems);
  return { items, answers };
}

/** What a backend wrote (or found under a stored key) for one item of a batch. */
export interface WrittenItem {
  id: string;
  deliveries: number;
  createdAt: Date;
  duplicate: boolean;
}

/**
 * One `PublishResult` per event of the batch, in order: an index whose key was used earlier in the batch answers
 * with that message as a duplicate.
 *
 * @example
 * ```ts
 * batchResults(batch, written)[0].messageId; // "msg_…"
 * ```
 */
export function batchResults(batch: PreparedBatch, written: readonly WrittenItem[]): PublishResult[] {
  return batch.answers.map((position, index) => {
    const w = written[position] as WrittenItem;
    const repeated = (batch.items[position] as BatchItem).index !== index;
    return {
      messageId: w.id,
      duplicate: w.duplicate || repeated,
      deliveries: w.deliveries,
      createdAt: w.createdAt,
    };
  });
}

function checkOne(
  entry: BatchEvent,
  index: number,
  options: PublishManyOptions,
  problems: BatchProblem[],
): BatchItem | undefined {
  try {
    if (entry === null || typeof entry !== "object") {
      throw new StoreInputError(
        "invalid_batch_entry",
        "Each entry must be an object { event, eventType?, … }.",
      );
    }
    const key = entry.idempotencyKey === undefined ? null : checkIdempotencyKey(entry.idempotencyKey);
    const prepared = prepareEvent(entry.event, {
      mode: options.mode,
      eventType: entry.eventType,
      catalog: options.catalog,
    });
    return { ...prepared, index, key, traceContext: checkTraceContext(entry.traceContext) };
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    problems.push({
      index,
      code: error.code,
      message: error.message,
      ...(error instanceof InvalidEventError && { issues: error.issues }),
    });
    return undefined;
  }
}
