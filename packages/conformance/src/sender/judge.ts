import { createServer } from "node:http";
import { PlantStoreError } from "@plant-store/core";
import { type Catalog, catalog as specCatalog, WEBHOOK_HEADERS } from "@plant-store/spec";
import type { Report } from "../types.js";
import { type DeliveryRules, judgeDelivery } from "./judge-delivery.js";
import { judgeRun } from "./judge-run.js";
import { isGone, type Plan } from "./plan.js";
import type { Arrival } from "./record.js";

/** What the sender under test was configured with, and how the judge answers. */
export interface SenderJudgeOptions {
  /** The endpoint's `whsec_` secrets: signatures are verified with them. Give these or `publicKeys`. */
  readonly secrets?: readonly string[] | undefined;
  /** The sender's `whpk_` public keys, for `v1a` signatures. */
  readonly publicKeys?: readonly string[] | undefined;
  /** The bearer token the sender should present; without it `sender.bearer` is skipped. */
  readonly token?: string | undefined;
  readonly catalog?: Catalog | undefined;
  /** How far a timestamp may be from the judge's clock (default 300 s, as receivers use). */
  readonly toleranceSeconds?: number | undefined;
  /** The `Retry-After` the judge sends with its planned 503 (default 2 s). */
  readonly retryAfterSeconds?: number | undefined;
  /** Deliveries to paths ending with this are answered 410 (default `/gone`). */
  readonly gonePath?: string | undefined;
  readonly now?: (() => number) | undefined;
}

/** A receiver that judges a sender's deliveries as they arrive. */
export interface SenderJudge {
  /** The judge as a Fetch handler. */
  handle(request: Request): Promise<Response>;
  /** The judge on a node:http server; `url` is its origin. */
  listen(options?: { port?: number; host?: string }): Promise<{ url: string; close(): Promise<void> }>;
  /**
   * Resolves `true` once `events` events were accepted and every planned retry arrived, `false` at the timeout or
   * when `signal` aborts (its timer is cleared either way).
   */
  waitFor(events: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** The report of what arrived so far. */
  report(target?: string): Report;
  readonly arrivals: readonly Arrival[];
}

/** The answer to one delivery; a refusal's choice is recorded at once, before anything else can arrive. */
function answerFor(path: string, body: string, arrivals: readonly Arrival[], plan: Plan) {
  if (isGone(path, plan)) return { status: 410 };
  const seen =
    Object.values(plan.chosen).includes(body) ||
    arrivals.some((arrival) => arrival.body === body && !isGone(arrival.path, plan));
  if (seen) return { status: 204 };
  if (plan.chosen["500"] === undefined) {
    plan.chosen["500"] = body;
    return { status: 500, refuse: "500" as const };
  }
  if (plan.chosen["503"] === undefined) {
    plan.chosen["503"] = body;
    return { status: 503, retryAfterSeconds: plan.retryAfterSeconds, refuse: "503" as const };
  }
  return { status: 204 };
}

/**
 * Creates a judge of a sender: point the sender's endpoint at `<url>/plant/webhook` (and, to judge 410 handling, a
 * second endpoint at `<url>/gone`), publish a few events with distinct payloads, wait, read the report.
 *
 * @example
 * ```ts
 * const judge = createSenderJudge({ secrets: ["whsec_…"], token: "psk_…" });
 * const { url, close } = await judge.listen({ port: 0 });
 * // … subscribe `${url}/plant/webhook` and `${url}/gone`, publish 3 events …
 * await judge.waitFor(3, 60_000);
 * console.log(judge.report().summary);
 * await close();
 * ```
 */
export function createSenderJudge(options: SenderJudgeOptions): SenderJudge {
  const rules: DeliveryRules = {
    secrets: options.secrets ?? [],
    publicKeys: options.publicKeys ?? [],
    token: options.token,
    catalog: options.catalog ?? specCatalog,
    toleranceSeconds: options.toleranceSeconds ?? 300,
    now: options.now ?? Date.now,
  };
  if (rules.secrets.length + rules.publicKeys.length === 0) {
    throw new PlantStoreError(
      "invalid_option",
      "The sender judge verifies signatures: give the endpoint's secrets or the sender's public keys.",
    );
  }
  const plan: Plan = {
    chosen: {},
    retryAfterSeconds: options.retryAfterSeconds ?? 2,
    gonePath: options.gonePath ?? "/gone",
  };
  const arrivals: Arrival[] = [];
  const waiters = new Set<() => void>();
  const handle = async (request: Request) => {
    const arrival = await receive(request, rules, arrivals, plan);
    arrivals.push(arrival);
    for (const wake of waiters) wake();
    const headers: Record<string, string> = arrival.retryAfterSeconds
      ? { "retry-after": String(arrival.retryAfterSeconds) }
      : {};
    return new Response(null, { status: arrival.status, headers });
  };
  return {
    handle,
    arrivals,
    listen: (listenOptions) => listen(handle, listenOptions),
    waitFor: (events, timeoutMs, signal) =>
      waitFor(() => complete(arrivals, plan, events), waiters, timeoutMs, signal),
    report: (target = "sender") => judgeRun(arrivals, plan, rules, target),
  };
}

async function receive(
  request: Request,
  rules: DeliveryRules,
  arrivals: readonly Arrival[],
  plan: Plan,
): Promise<Arrival> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  const body = new TextDecoder().decode(bytes);
  const headers = Object.fromEntries(
    [...request.headers.entries()].map(([name, value]) => [name.toLowerCase(), value]),
  );
  const path = new URL(request.url).pathname;
  const answer = answerFor(path, body, arrivals, plan);
  const problems = await judgeDelivery(path, headers, bytes, rules);
  const arrival: Arrival = {
    at: rules.now(),
    path,
    headers,
    body,
    id: headers[WEBHOOK_HEADERS.id],
    status: answer.status,
    retryAfterSeconds: answer.retryAfterSeconds,
    problems,
  };
  if (answer.refuse === "500") plan.refused500 = arrival;
  if (answer.refuse === "503") plan.refused503 = arrival;
  return arrival;
}

/** Whether `events` events were accepted and each planned refusal was retried. */
function complete(arrivals: readonly Arrival[], plan: Plan, events: number): boolean {
  const accepted = new Set(arrivals.filter((a) => a.status < 300).map((a) => a.body));
  const retried = (refused: Arrival | undefined) =>
    refused !== undefined &&
    arrivals.some((a) => a.at > refused.at && a.body === refused.body && !isGone(a.path, plan));
  return accepted.size >= events && retried(plan.refused500) && retried(plan.refused503);
}

function waitFor(
  done: () => boolean,
  waiters: Set<() => void>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (done()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const finish = (value: boolean) => {
      clearTimeout(timer);
      waiters.delete(check);
      signal?.removeEventListener("abort", stop);
      resolve(value);
    };
    const stop = () => finish(false);
    signal?.addEventListener("abort", stop);
    const check = () => {
      if (done()) finish(true);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    waiters.add(check);
  });
}

function listen(
  handle: (request: Request) => Promise<Response>,
  options: { port?: number; host?: string } = {},
) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("error", () => res.destroy());
    req.on("end", async () => {
      try {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === "string") headers.set(name, value);
        const request = new Request(new URL(req.url ?? "/", "http://judge"), {
          method: req.method ?? "POST",
          headers,
          body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
        });
        const response = await handle(request);
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        res.end();
      } catch (error) {
        // A request the judge cannot read is the sender's problem to see, not a reason to stop judging.
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: 400,
            message: `The judge could not read this request: ${(error as Error).message}`,
          }),
        );
      }
    });
  });
  const host = options.host ?? "127.0.0.1";
  return new Promise<{ url: string; close(): Promise<void> }>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : options.port;
      resolve({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
