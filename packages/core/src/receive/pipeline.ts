import { checkSignature } from "./check-signature.js";
import { commitEvent } from "./commit.js";
import type { PipelineContext } from "./context.js";
import { preflight, tooLarge } from "./preflight.js";
import { readEvent } from "./read-event.js";
import { errorResponse } from "./responses.js";
import { errorMessage } from "./text.js";
import type { WebhookRequest, WebhookResponse } from "./types.js";

/**
 * The receive pipeline over a read body, stage by stage: preflight (unless the adapter ran it on this request) →
 * size cap → bearer → signature → parse and validate → dedup and commit. Each stage answers a refusal or hands on
 * what it read; never throws (an unexpected error is a 503). The bearer and signature stages are awaited only when
 * they returned a promise, so the usual request on Node is decided synchronously up to `onEvent`.
 *
 * @example
 * ```ts
 * const response = await runPipeline(context, request, false);
 * ```
 */
export async function runPipeline(
  context: PipelineContext,
  request: WebhookRequest,
  preflighted: boolean,
): Promise<WebhookResponse> {
  try {
    if (!preflighted) {
      const early = preflight(context, request);
      if (early) return early;
    }
    if (request.body.byteLength > context.maxBodyBytes) return tooLarge(context);
    const bearer = context.checkBearer(request.headers("authorization"));
    const auth = bearer instanceof Promise ? await bearer : bearer;
    if (!auth.ok) return errorResponse(auth.status, auth.message, auth.headers);
    const checked = checkSignature(context, request);
    const signed = checked instanceof Promise ? await checked : checked;
    if (signed.kind === "refused") return signed.response;
    const read = readEvent(context, request, signed);
    if (read.kind === "refused") return read.response;
    return await commitEvent(context, read.event);
  } catch (error) {
    context.logger?.error("webhook pipeline failed", { error: errorMessage(error) });
    return errorResponse(503, "The event could not be processed right now. Retry later.");
  }
}
