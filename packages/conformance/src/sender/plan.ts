import type { Arrival } from "./record.js";

/** The judge's plan: the first event is answered 500 once, the second 503 with Retry-After once, `/gone` 410. */
export interface Plan {
  readonly retryAfterSeconds: number;
  readonly gonePath: string;
  /** The bodies chosen for each refusal, set the moment they are chosen (deliveries arrive concurrently). */
  readonly chosen: { "500"?: string; "503"?: string };
  refused500?: Arrival;
  refused503?: Arrival;
}

/** Whether a delivery went to the endpoint the judge answers 410. */
export function isGone(path: string, plan: Plan): boolean {
  return path.endsWith(plan.gonePath);
}
