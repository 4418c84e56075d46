import type { Exchange } from "./types.js";

const SHOWN_BODY_CHARS = 600;

/** A body shortened for a report: the first characters and how many more there were. */
export function shown(body: string): string {
  return body.length <= SHOWN_BODY_CHARS
    ? body
    : `${body.slice(0, SHOWN_BODY_CHARS)}… (${body.length} characters)`;
}

/** Request headers for a report: credentials replaced by their scheme, so no token reaches a report or a log. */
export function shownHeaders(headers: Headers | Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    out[name.toLowerCase()] =
      name.toLowerCase() === "authorization" ? `${value.split(" ")[0] ?? ""} …` : value;
  }
  return out;
}

/** What a failed exchange says about the connection, in words: a timeout, a refusal, a reset. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string })?.name;
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === "ECONNREFUSED") return "connection refused: nothing listens there";
  if (cause?.code) return `connection failed (${cause.code})`;
  return `request failed: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * Sends one request and records the exchange; never throws. A send function stands for either the network
 * (`fetch`) or a Fetch handler called in-process.
 */
export async function exchange(
  send: (request: Request) => Promise<Response>,
  request: Request,
  body: string,
  timeoutMs: number,
): Promise<Exchange> {
  const shownRequest = {
    method: request.method,
    url: request.url,
    headers: shownHeaders(request.headers),
    body: shown(body),
  };
  const started = performance.now();
  try {
    const response = await withDeadline(send(request), timeoutMs);
    const text = await withDeadline(response.text(), timeoutMs);
    return {
      request: shownRequest,
      response: { status: response.status, headers: shownHeaders(response.headers), body: shown(text) },
      ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    return {
      request: shownRequest,
      error: describeFailure(error, timeoutMs),
      ms: Math.round(performance.now() - started),
    };
  }
}

function withDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error("timeout"), { name: "TimeoutError" })),
      timeoutMs,
    );
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
