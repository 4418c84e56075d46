import type { IncomingMessage, ServerResponse } from "node:http";
import { context } from "@opentelemetry/api";
import { lingerAfterRefusal, logText } from "@plant-store/app-kit";
import type { WebhookHandler, WebhookResponse } from "@plant-store/core";
import { handleNodeRequest, type NodeRequestOptions } from "@plant-store/core/node";
import { EVENT_TYPE_HEADER, WEBHOOK_HEADERS } from "@plant-store/spec";
import type { AccessLine } from "./access-line.js";
import type { ReceiverMetrics } from "./metrics.js";
import { endServerSpan, type receiverTracer, startServerSpan } from "./tracing.js";

/** What a webhook request is served with. */
export interface WebhookRoute {
  readonly handler: WebhookHandler;
  readonly metrics: ReceiverMetrics;
  readonly tracer: ReturnType<typeof receiverTracer>;
  readonly accessLine: AccessLine | undefined;
}

// A 413 for a body still arriving closes with a lingering close, so the client reads it instead of a reset.
const NODE_OPTIONS: NodeRequestOptions = { drainRefused: lingerAfterRefusal };

/**
 * Serves one webhook request through core's pipeline (in its own span when tracing), then counts it and writes its
 * log line. Nothing is counted for a client that went away before sending the whole body.
 *
 * @example
 * ```ts
 * if (webhookPaths.has(path)) void serveWebhook(route, path, req, res);
 * ```
 */
export async function serveWebhook(
  route: WebhookRoute,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = performance.now();
  const traced = route.tracer();
  let response: WebhookResponse | null;
  if (traced) {
    // The pipeline runs in the request span's context: the commit's span is its child.
    const server = startServerSpan(traced, req, path);
    response = await context.with(
      server.context,
      handleNodeRequest,
      undefined,
      route.handler,
      req,
      res,
      NODE_OPTIONS,
    );
    endServerSpan(server.span, response);
  } else response = await handleNodeRequest(route.handler, req, res, NODE_OPTIONS);
  if (!response) return;
  observe(route, req, response, (performance.now() - started) / 1000);
}

function observe(
  route: WebhookRoute,
  req: IncomingMessage,
  response: WebhookResponse,
  seconds: number,
): void {
  route.metrics.observeRequest(response.status, seconds);
  const { outcome } = response;
  if (outcome.kind === "duplicate") route.metrics.duplicates.inc();
  route.accessLine?.({
    // Both come from the request: a line takes a bounded part of them, whatever the client sent.
    webhookId: logText(req.headers[WEBHOOK_HEADERS.id]),
    eventType: logText(req.headers[EVENT_TYPE_HEADER]),
    status: response.status,
    outcome: outcome.kind,
    reason: outcome.kind === "rejected" ? logText(outcome.reason) : undefined,
    ms: Math.round(seconds * 10_000) / 10,
  });
}
