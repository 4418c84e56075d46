import { deliver, signsWith } from "@plant-store/core";
import type { ClaimedDelivery } from "@plant-store/store";
import { logText } from "../log-text.js";
import { judgeAttempt, loggedOutcome } from "./attempt-result.js";
import { startAttemptSpan, traceAttempt } from "./attempt-tracing.js";
import { recordOutcome } from "./outcome-recorder.js";
import type { WorkerContext } from "./worker-context.js";

/**
 * One attempt: the delivery's subscription and message sent through core's `deliver`, the outcome settled against
 * the schedule and recorded with one call. With an OpenTelemetry SDK registered it is a CLIENT span continuing the
 * publish's trace, whose context the request carries (`traceparent`); without one, nothing but the `tracer()` lookup.
 */
async function attempt(ctx: WorkerContext, delivery: ClaimedDelivery, answered: () => void): Promise<void> {
  const { subscription, message } = delivery;
  const target = {
    url: subscription.url,
    token: subscription.token,
    // The claim opened only the secrets the subscription's scheme signs with.
    secrets: subscription.secrets,
    privateKeys: signsWith(subscription.signing).keys ? ctx.privateKeys : [],
    signing: subscription.signing,
    headers: subscription.headers,
  };
  const sent = { id: message.id, eventType: message.eventType, body: message.body };
  if (delivery.notBefore !== null) await sendTime(ctx, delivery.notBefore.getTime());
  // A target's own budget, never past the lease (another worker would take the delivery while it runs).
  const timeoutMs =
    subscription.timeoutMs === null ? ctx.timeoutMs : Math.min(subscription.timeoutMs, ctx.leaseMs - 5_000);
  const span = startAttemptSpan(ctx.tracer(), delivery);
  const outcome = span
    ? await traceAttempt(span, ctx.transport, (transport) => deliver(target, sent, { transport, timeoutMs }))
    : await deliver(target, sent, { transport: ctx.transport, timeoutMs });
  const result = judgeAttempt(outcome, delivery.attempt, ctx.schedule, Date.now());
  ctx.metrics?.observeAttempt(result.label, outcome.latencyMs / 1000, delivery);
  // The endpoint has answered: its slot may take the next delivery while the outcome commits (the lease holds the
  // delivery until then). An ordered target's next delivery waits for the head's outcome, so its slot does too.
  if (!subscription.ordered) answered();
  await recordOutcome(ctx.store, delivery, result.outcome);
  if (result.outcome.kind === "gone") {
    ctx.logger?.warn({ subscriptionId: subscription.id }, `${TARGET_NOUN[ctx.scope]} disabled: 410 Gone`);
  }
  if (subscription.ordered) noteHead(ctx, delivery, result.outcome.kind === "retry");
  if (result.outcome.retryAt !== undefined) {
    ctx.nextLocalDue = Math.min(ctx.nextLocalDue, result.outcome.retryAt);
    ctx.wake?.abort(); // an idle wait started before this retry existed: recompute it
  }
  // Written in ATTEMPT_LINE_KEYS' order, whatever the order here; an undefined value is left out.
  ctx.attemptLine?.({
    messageId: message.id,
    deliveryId: delivery.id,
    subscriptionId: subscription.id,
    attempt: delivery.attempt,
    outcome: loggedOutcome(result),
    status: outcome.status ?? null,
    ms: outcome.latencyMs,
    // The error can quote what the endpoint sent (a redirect's Location): bounded like any outside value.
    error: outcome.error ? logText(outcome.error) : undefined,
  });
}

/** What a target is called in the worker's log lines, by scope. */
const TARGET_NOUN = { sender: "subscription", receiver: "destination" } as const;

/**
 * An ordered target's head was attempted: when it is to be retried, the deliveries behind it wait, and the worker
 * says so once per head ("blocked behind msg_…", with the message's webhook-id), not at every retry; any other
 * outcome moves the head on.
 */
function noteHead(ctx: WorkerContext, delivery: ClaimedDelivery, retrying: boolean): void {
  const id = delivery.subscription.id;
  if (!retrying) {
    ctx.blockedHeads.delete(id);
    return;
  }
  if (ctx.blockedHeads.get(id) === delivery.id) return;
  ctx.blockedHeads.set(id, delivery.id);
  ctx.logger?.warn(
    {
      subscriptionId: id,
      messageId: delivery.message.id,
      deliveryId: delivery.id,
      attempt: delivery.attempt,
    },
    `${TARGET_NOUN[ctx.scope]} blocked behind ${delivery.message.id}`,
  );
}

/**
 * Waits for a rate-limited target's send time (the claim handed it out, at most its horizon ahead); a stop ends the
 * wait early, and the attempt goes ahead (its in-flight slot is bounded by the timeout anyway).
 */
function sendTime(ctx: WorkerContext, at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, wait);
    ctx.stopping.signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Starts one attempt in a slot the pool gave. The slot is freed once the endpoint has answered (an ordered target's
 * once the outcome is committed); the attempt stays in `ctx.running`, and counted in `ctx.recording`, until its
 * outcome is committed.
 *
 * @example
 * ```ts
 * for (const delivery of ctx.pool.take()) launch(ctx, delivery);
 * ```
 */
export function launch(ctx: WorkerContext, delivery: ClaimedDelivery): void {
  let sending = true;
  const answered = () => {
    sending = false;
    ctx.recording++;
    freeSlot(ctx, delivery);
  };
  const finished = () => {
    ctx.running.delete(run);
    if (sending) freeSlot(ctx, delivery);
    else ctx.recording--;
    ctx.slotFreed?.();
  };
  const run: Promise<void> = attempt(ctx, delivery, answered).then(finished, (error: Error) => {
    // The store refused the outcome (e.g. the lease expired and another worker took it): nothing to undo.
    ctx.logger?.warn({ deliveryId: delivery.id, error: error.message }, "could not record the outcome");
    finished();
  });
  ctx.running.add(run);
}

/** Frees an attempt's slot and wakes the claimer when the room it was waiting for exists. */
function freeSlot(ctx: WorkerContext, delivery: ClaimedDelivery): void {
  ctx.pool.done(delivery);
  // The freed slot goes first to a delivery already claimed for this (or another) subscription.
  if (!ctx.stopping.signal.aborted) for (const next of ctx.pool.take()) launch(ctx, next);
  // A claim that found nothing while skipping this subscription is worth retrying now that it has room.
  const sub = delivery.subscription.id;
  if (ctx.skippedWhenIdle?.has(sub) && ctx.pool.held(sub) < ctx.pool.capOf(delivery)) ctx.wake?.abort();
  ctx.slotFreed?.();
}
