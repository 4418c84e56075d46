import { WEBHOOK_HEADERS } from "@plant-store/spec";
import { idProblem, MAX_ID_LENGTH, parseTimestamp } from "../signing/message-parts.js";
import type { VerifyResult } from "../signing/verify.js";
import type { PipelineContext } from "./context.js";
import { errorResponse } from "./responses.js";
import type { WebhookRequest, WebhookResponse } from "./types.js";

/** What the signature stage found: the Standard Webhooks headers it read, or the refusal to answer. */
export type SignatureOutcome =
  | {
      readonly kind: "signed" | "unsigned";
      readonly id: string | null;
      readonly rawTimestamp: string | null;
      readonly timestamp: number | null;
      readonly signature: string | null | undefined;
    }
  | { readonly kind: "refused"; readonly response: WebhookResponse };

/**
 * The signature stage: with secrets or keys configured, the three headers must be there and the signature must
 * verify (400 malformed, 401 otherwise); without, a `webhook-id` or `webhook-timestamp` that is sent must still be
 * well-formed (400). The outcome itself when the verifier decides synchronously, a promise otherwise.
 *
 * @example
 * ```ts
 * const checked = checkSignature(context, request);
 * const outcome = checked instanceof Promise ? await checked : checked;
 * ```
 */
export function checkSignature(
  context: PipelineContext,
  request: WebhookRequest,
): SignatureOutcome | Promise<SignatureOutcome> {
  const id = request.headers(WEBHOOK_HEADERS.id) ?? null;
  const rawTimestamp = request.headers(WEBHOOK_HEADERS.timestamp) ?? null;
  const signature = request.headers(WEBHOOK_HEADERS.signature);
  const { verify, now, toleranceSeconds, challenge } = context.signatures;
  if (!verify) return unsigned(id, rawTimestamp, signature);
  if (!id || !rawTimestamp || !signature) {
    return refused(
      errorResponse(
        401,
        "This receiver requires signed webhooks: send webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks).",
        challenge,
      ),
    );
  }
  const verified = verify({
    id,
    timestamp: rawTimestamp,
    signature,
    body: request.body,
    now,
    toleranceSeconds,
  });
  const judge = (verdict: VerifyResult): SignatureOutcome => {
    if (verdict.ok) return { kind: "signed", id, rawTimestamp, timestamp: verdict.timestamp, signature };
    const status = verdict.code.startsWith("malformed_") || verdict.code === "missing_headers" ? 400 : 401;
    return refused(errorResponse(status, verdict.message, status === 401 ? challenge : {}));
  };
  return verified instanceof Promise ? verified.then(judge) : judge(verified);
}

/** An unsigned request's headers: whatever it sends of them is read as a signed request's would be. */
function unsigned(
  id: string | null,
  rawTimestamp: string | null,
  signature: string | null | undefined,
): SignatureOutcome {
  if (id !== null && idProblem(id) !== null) {
    return refused(
      errorResponse(
        400,
        `Malformed webhook-id: send 1 to ${MAX_ID_LENGTH} visible ASCII characters, the same on every retry.`,
      ),
    );
  }
  // The same reading as a signed request's (parseTimestamp), so a timestamp never passes in one mode only.
  const timestamp = rawTimestamp === null ? null : parseTimestamp(rawTimestamp);
  if (rawTimestamp !== null && timestamp === null) {
    return refused(errorResponse(400, "Malformed webhook-timestamp: send unix time in whole seconds."));
  }
  return { kind: "unsigned", id, rawTimestamp, timestamp, signature };
}

function refused(response: WebhookResponse): SignatureOutcome {
  return { kind: "refused", response };
}
