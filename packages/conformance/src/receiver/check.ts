import type { CheckInfo, Exchange } from "../types.js";
import type { ReceiverContext } from "./context.js";

/** What a check needs from the run; without it the check is skipped and says so. */
export type Need = "token" | "signing" | "secret" | "privateKey" | "verifyingKey";

/** What a check found: pass or fail, one line saying why, and the exchanges that show it. */
export interface Finding {
  readonly pass: boolean;
  readonly detail: string;
  readonly exchanges: readonly Exchange[];
}

/** One receiver check: its info, what it needs, and how to run it. */
export interface ReceiverCheck extends CheckInfo {
  readonly needs?: readonly Need[];
  /** Opt-in group: a check of a group runs only when the run includes it. */
  readonly group?: "load";
  readonly note?: string;
  run(context: ReceiverContext): Promise<Finding>;
}

/** What came back, in words: `answered 401` or the connection's failure. */
export function answer(exchange: Exchange): string {
  return exchange.response ? `answered ${exchange.response.status}` : (exchange.error ?? "no answer");
}

export const is2xx = (exchange: Exchange) =>
  exchange.response !== undefined && exchange.response.status >= 200 && exchange.response.status < 300;
export const is4xx = (exchange: Exchange) =>
  exchange.response !== undefined && exchange.response.status >= 400 && exchange.response.status < 500;

/**
 * Judges every exchange with one predicate: passes when all hold; the detail names the first that did not, with
 * its label, or else says what they all did.
 */
export function judgeAll(
  exchanges: readonly { label: string; exchange: Exchange }[],
  holds: (exchange: Exchange) => boolean,
  expected: string,
): Finding {
  const failed = exchanges.find(({ exchange }) => !holds(exchange));
  const all = exchanges.map(({ exchange }) => exchange);
  if (failed)
    return {
      pass: false,
      detail: `${failed.label}: ${answer(failed.exchange)}; expected ${expected}`,
      exchanges: all,
    };
  const statuses = [...new Set(all.map(answer))].join(", ");
  return {
    pass: true,
    detail: `${exchanges.length === 1 ? "" : `${exchanges.length} requests: `}${statuses}`,
    exchanges: all,
  };
}

/** A header of an answer, or `undefined`. */
export function responseHeader(exchange: Exchange, name: string): string | undefined {
  return exchange.response?.headers[name.toLowerCase()];
}
