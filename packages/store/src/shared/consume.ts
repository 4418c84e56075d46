import { randomUUID } from "node:crypto";
import { settleOutcome } from "@plant-store/core";
import type { Destinations } from "../api/destinations.js";
import type { ConsumedEvent, ConsumeOptions, Consumer } from "../api/inbox.js";
import type { ClaimedDelivery, Outbox, RecordedOutcome } from "../api/outbox.js";
import { StoreInputError, storeClosedError } from "../errors.js";
import { CONSUMER_SCHEME } from "./target-scope.js";
import { checkPositiveInt } from "./validate.js";

/** Defaults of `inbox.consume`. */
export const CONSUME_DEFAULTS = { name: "default", concurrency: 1, leaseMs: 30_000, pollMs: 250 } as const;

const STORE_CLOSED = storeClosedError().code;

/** What a consumer uses of the store. */
export interface ConsumeDeps {
  destinations: Destinations;
  outbox: Outbox;
}

interface ConsumeRun {
  target: string;
  handler: ConsumeOptions["handler"];
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  schedule: readonly number[] | undefined;
  signal: AbortSignal;
  onError: (error: unknown) => void;
  workerId: string;
}

/**
 * `inbox.consume` on either backend: registers (or finds) the consumer's target `consumer:<name>` with its types,
 * then runs the claim loop until `signal` aborts.
 *
 * @example
 * ```ts
 * const consumer = await consume({ destinations, outbox }, { handler: async (e) => save(e.json()) });
 * ```
 */
export async function consume(deps: ConsumeDeps, options: ConsumeOptions): Promise<Consumer> {
  if (options === null || typeof options !== "object" || typeof options.handler !== "function") {
    throw new StoreInputError("invalid_argument", "consume needs a handler function.");
  }
  const given = options.name ?? CONSUME_DEFAULTS.name;
  if (typeof given !== "string" || given.length === 0) {
    throw new StoreInputError("invalid_name", "A consumer's name must be a non-empty string.");
  }
  const name = `${CONSUMER_SCHEME}${given}`;
  const eventTypes = options.types === undefined || options.types === null ? null : [...options.types];
  const run = {
    handler: options.handler,
    concurrency: checkPositiveInt(options.concurrency ?? CONSUME_DEFAULTS.concurrency, "concurrency"),
    leaseMs: checkPositiveInt(options.leaseMs ?? CONSUME_DEFAULTS.leaseMs, "leaseMs"),
    pollMs: checkPositiveInt(options.pollMs ?? CONSUME_DEFAULTS.pollMs, "pollMs"),
    schedule: options.schedule,
    signal: options.signal ?? new AbortController().signal,
    onError: options.onError ?? (() => {}),
    workerId: `consumer-${randomUUID()}`,
  };
  let target = await deps.destinations.ensure({ name, url: name, eventTypes });
  if (JSON.stringify(target.eventTypes) !== JSON.stringify(eventTypes)) {
    target = await deps.destinations.update(target.id, { eventTypes });
  }
  return { id: target.id, name, stopped: loop(deps.outbox, { ...run, target: target.id }) };
}

/** Claims while there is room and work, hands each claim to a handler, and waits when idle. */
async function loop(outbox: Outbox, run: ConsumeRun): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  try {
    while (!run.signal.aborted) {
      const room = run.concurrency - inFlight.size;
      const claimed =
        room > 0
          ? await outbox.claim(room, {
              scope: "receiver",
              target: run.target,
              leaseMs: run.leaseMs,
              workerId: run.workerId,
            })
          : [];
      for (const delivery of claimed) {
        const handled: Promise<void> = handle(outbox, run, delivery).finally(() => inFlight.delete(handled));
        inFlight.add(handled);
      }
      if (claimed.length === 0) await idle(run, inFlight);
    }
  } catch (error) {
    // The store closing ends the loop like the signal does; any other failed claim rejects `stopped`.
    if ((error as { code?: unknown }).code !== STORE_CLOSED) throw error;
  } finally {
    await Promise.allSettled(inFlight);
  }
}

/** Until a handler finishes (room again), `pollMs` passes, or the signal aborts. */
function idle(run: ConsumeRun, inFlight: ReadonlySet<Promise<void>>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      run.signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, run.pollMs);
    run.signal.addEventListener("abort", done, { once: true });
    if (inFlight.size >= run.concurrency) Promise.race(inFlight).then(done, done);
  });
}

/** One call of the handler and its outcome recorded: delivered, or a retry on the schedule, or failed. */
async function handle(outbox: Outbox, run: ConsumeRun, delivery: ClaimedDelivery): Promise<void> {
  const started = Date.now();
  const timestamp = Math.floor(started / 1000);
  let outcome: RecordedOutcome;
  try {
    await run.handler(consumedEvent(delivery));
    outcome = { kind: "delivered", latencyMs: Date.now() - started };
  } catch (error) {
    const latencyMs = Date.now() - started;
    const settled = settleOutcome({ kind: "retry", latencyMs, timestamp }, delivery.attempt, {
      schedule: run.schedule,
    });
    const message = error instanceof Error ? error.message : String(error);
    outcome = { kind: settled.kind, retryAt: settled.retryAt, latencyMs, error: `handler threw: ${message}` };
  }
  try {
    await outbox.record(delivery, outcome);
  } catch (error) {
    run.onError(error);
  }
}

function consumedEvent(delivery: ClaimedDelivery): ConsumedEvent {
  const { message } = delivery;
  return {
    id: message.id,
    type: message.eventType,
    body: message.body,
    receivedAt: message.createdAt,
    attempt: delivery.attempt,
    json: () => JSON.parse(new TextDecoder().decode(message.body)),
  };
}
