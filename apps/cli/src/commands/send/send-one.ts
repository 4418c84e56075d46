import { createMessageId, type DeliveryTarget, deliver, type Transport } from "@plant-store/core";
import { CliError } from "../../cli-error.js";
import { fetchFailure, redirectNote } from "../../output.js";

/** What one webhook came to: the receiver's status and answer, or why there is none. */
export interface Result {
  status: number | null;
  latencyMs: number;
  webhookId: string;
  body: string;
  error?: string;
}

/** What the transport saw of one request, for the CLI's own words: the answer whole, the redirect, the failure. */
interface Seen {
  body?: string;
  location?: string | null;
  error?: unknown;
}

/**
 * Sends one webhook with core's `deliver`, which builds and signs the request (a fresh `webhook-id`). Over it, the
 * CLI's transport keeps the whole answer to print and the network error to say in words. A target that cannot be
 * sent to (a secret that cannot sign, say) is a usage error.
 *
 * @example
 * ```ts
 * await sendOne({ url, token: "psk_…", secrets: [] }, "newPlant", body, 15_000);
 * ```
 */
export async function sendOne(
  target: DeliveryTarget,
  eventType: string,
  body: Uint8Array,
  timeoutMs: number,
): Promise<Result> {
  const webhookId = createMessageId();
  const seen: Seen = {};
  const outcome = await deliver(
    target,
    { id: webhookId, eventType, body },
    { timeoutMs, userAgent: "plant-store-cli", transport: seenFetch(seen), now: preciseNow },
  );
  if (outcome.reason === "unusable_target") throw new CliError(outcome.error ?? "Cannot send.", 2);
  const latencyMs = Math.round(outcome.latencyMs * 10) / 10;
  if (seen.error !== undefined || outcome.status === undefined) {
    const error = seen.error === undefined ? outcome.error : fetchFailure(seen.error, timeoutMs, "--timeout");
    return { status: null, latencyMs, webhookId, body: "", error: error ?? "no answer" };
  }
  const redirect = redirectNote(outcome.status, seen.location ?? null);
  return {
    status: outcome.status,
    latencyMs,
    webhookId,
    body: seen.body ?? "",
    ...(redirect && { error: redirect }),
  };
}

/** Milliseconds since the epoch, to a fraction of one: latencies are printed to a tenth. */
const preciseNow = () => performance.timeOrigin + performance.now();

/** `fetch` as a core transport, noting in `seen` what the CLI prints: the whole answer, its Location, a failure. */
function seenFetch(seen: Seen): Transport {
  return async (request) => {
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: "manual",
        signal: request.signal,
      });
      seen.location = response.headers.get("location");
      seen.body = await response.text();
      return {
        status: response.status,
        type: response.type,
        headers: response.headers,
        readBody: async () => "",
      };
    } catch (error) {
      seen.error = error;
      throw error;
    }
  };
}
