import type { InFlight, PipelineContext } from "./context.js";
import { errorResponse, okResponse } from "./responses.js";
import { errorMessage } from "./text.js";
import type { DedupStore, ReceivedEvent, WebhookResponse } from "./types.js";

/** How long a request waits for another request of the same webhook-id before running itself. */
const IN_FLIGHT_WAIT_MS = 10_000;

/**
 * The dedup and commit stage: `onEvent` stores the event, and the 200 says whether it was stored before. With a
 * dedup store and a webhook-id, dedup check → onEvent → add runs for one request per id at a time in this handler;
 * across processes the dedup store has to decide. A failure is a 503: nothing was accepted, the sender retries.
 *
 * @example
 * ```ts
 * return await commitEvent(context, read.event);
 * ```
 */
export async function commitEvent(context: PipelineContext, event: ReceivedEvent): Promise<WebhookResponse> {
  const { id } = event;
  try {
    if (id === null || !context.dedup) return okResponse((await context.onEvent(event))?.duplicate === true);
    const claimed = claimId(context.inFlight, id);
    const slot = claimed instanceof Promise ? await claimed : claimed;
    if (slot === "duplicate") return okResponse(true);
    return await commitOnce(context, context.dedup, slot, id, event);
  } catch (error) {
    context.logger?.error("storing the event failed", { webhookId: id, error: errorMessage(error) });
    return errorResponse(503, "The event could not be stored right now. It was not accepted; retry later.");
  }
}

/**
 * Takes the id's slot, at once when no request of the same id is in flight. Otherwise waits: "duplicate" once that
 * one stored its event; the slot when it failed, or has not settled within {@link IN_FLIGHT_WAIT_MS} (a first
 * request stuck on a dead connection must not hold every retry of its id). The check and the claim happen in one
 * synchronous step, so two waiters never both run.
 */
function claimId(inFlight: Map<string, InFlight>, id: string): InFlight | Promise<InFlight | "duplicate"> {
  const entry = inFlight.get(id);
  return entry === undefined ? claim(inFlight, id) : waitThenClaim(inFlight, id, entry);
}

async function waitThenClaim(
  inFlight: Map<string, InFlight>,
  id: string,
  first: InFlight,
): Promise<InFlight | "duplicate"> {
  for (let entry: InFlight | undefined = first; entry !== undefined; entry = inFlight.get(id)) {
    const outcome = await settledOrStuck(entry);
    if (outcome === true) return "duplicate";
    if (outcome === "stuck") break; // its slot is replaced below; when it ends it leaves ours alone
  }
  return claim(inFlight, id);
}

function claim(inFlight: Map<string, InFlight>, id: string): InFlight {
  const slot: InFlight = { stored: undefined, settle: noop };
  inFlight.set(id, slot);
  return slot;
}

function settledOrStuck(entry: InFlight): Promise<boolean | "stuck"> {
  // The first waiter makes the promise; a request alone with its id never pays for one.
  if (entry.stored === undefined) {
    let settle: (stored: boolean) => void = noop;
    entry.stored = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    entry.settle = settle;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<"stuck">((resolve) => {
    timer = setTimeout(resolve, IN_FLIGHT_WAIT_MS, "stuck");
  });
  return Promise.race([entry.stored, stuck]).then((outcome) => {
    clearTimeout(timer);
    return outcome;
  });
}

/** Holds the id's slot while checking dedup, storing the event and adding the id; waiters learn how it ended. */
async function commitOnce(
  context: PipelineContext,
  dedup: DedupStore,
  slot: InFlight,
  id: string,
  event: ReceivedEvent,
): Promise<WebhookResponse> {
  let stored = false;
  try {
    if (await dedup.has(id)) {
      stored = true;
      return okResponse(true);
    }
    const result = await context.onEvent(event);
    stored = true;
    await dedup.add(id);
    return okResponse(result?.duplicate === true);
  } finally {
    if (context.inFlight.get(id) === slot) context.inFlight.delete(id);
    slot.settle(stored);
  }
}

function noop(): void {}
