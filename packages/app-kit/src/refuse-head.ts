import type { IncomingMessage } from "node:http";
import { errorResponse, type WebhookResponse } from "@plant-store/core";

const CLOSE = { connection: "close" } as const;

/**
 * What is wrong with a request's head before any route sees it: an HTTP/1.1 request must carry exactly one `Host`
 * (RFC 9112 §3.2), and none may carry two. Null when it is fine.
 *
 * @example
 * ```ts
 * refuseHead(req)?.status; // 400 when Host is missing or repeated
 * ```
 */
export function refuseHead(req: IncomingMessage): WebhookResponse | null {
  const hosts = countHosts(req.rawHeaders);
  if (hosts > 1) {
    return errorResponse(
      400,
      "The request has more than one Host header; send exactly one (RFC 9112 §3.2).",
      CLOSE,
    );
  }
  if (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
    return errorResponse(
      400,
      "The request has no Host header; HTTP/1.1 requires one (RFC 9112 §3.2).",
      CLOSE,
    );
  }
  return null;
}

function countHosts(raw: readonly string[]): number {
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i] as string;
    if (field.length === 4 && field.toLowerCase() === "host") hosts++;
  }
  return hosts;
}
