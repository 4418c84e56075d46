import type { Exchange } from "../types.js";

/** One delivery as the judge received it, and what the judge answered. */
export interface Arrival {
  readonly at: number;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly id: string | undefined;
  readonly status: number;
  /** The `Retry-After` seconds the judge asked for, when it did. */
  readonly retryAfterSeconds?: number;
  /** Verdicts of the per-delivery checks, by check id: `undefined` is a pass, a string says what failed. */
  readonly problems: Readonly<Record<string, string | undefined>>;
}

/** An arrival as a report shows it. */
export function asExchange(arrival: Arrival): Exchange {
  const headers = { ...arrival.headers };
  if (headers.authorization) headers.authorization = `${headers.authorization.split(" ")[0] ?? ""} …`;
  return {
    request: { method: "POST", url: arrival.path, headers, body: arrival.body.slice(0, 600) },
    response: { status: arrival.status, headers: {}, body: "" },
    ms: 0,
  };
}
