import type { Transport } from "@plant-store/core";
import { fetch as undiciFetch } from "undici";
import { DEFAULT_CONCURRENCY } from "../worker/worker-context.js";
import type { AllowList } from "./allow-list.js";
import { agentOrThrow, type GuardContext, verdictFor } from "./guard-context.js";
import { guardedTransport } from "./guarded-transport.js";
import { createPinnedAgents } from "./pinned-agents.js";
import { type Resolver, systemResolver } from "./resolve-target.js";

/** A `fetch` and a core `Transport` that refuse what the policy refuses and connect only to the address checked. */
export interface GuardedFetch {
  fetch: typeof globalThis.fetch;
  /** The same guard for core's `deliver({ transport })`, over undici's `request` (lighter than its `fetch`). */
  transport: Transport;
  close(): Promise<void>;
}

/**
 * Builds the `fetch` handed to core's `deliver`: each call resolves and checks the host, then connects to that
 * checked address through an undici Agent whose `lookup` returns it (no second DNS lookup, so a rebinding DNS
 * server cannot switch the address between check and connect). TLS still verifies the certificate for the host
 * name. Agents are reused per (origin, address), so keep-alive works. Refusals reject with an error whose `code`
 * is core's `BLOCKED_ADDRESS_CODE` (core records the attempt as failed, not retried); a name that does not resolve
 * rejects with `ERR_PLANT_STORE_UNRESOLVED`, retried like any connection failure. `connections` is the most
 * connections per Agent: give it the caller's whole concurrency, so attempts to one host (several subscriptions
 * may share it) never queue inside the Agent, where waiting would eat their timeout.
 *
 * @example
 * ```ts
 * const guard = createGuardedFetch({ allow: parseAllowList(["127.0.0.0/8"]) });
 * await deliver(target, message, { transport: guard.transport });
 * ```
 */
export function createGuardedFetch(options: {
  allow: AllowList;
  resolve?: Resolver;
  connections?: number;
}): GuardedFetch {
  const guard: GuardContext = {
    allow: options.allow,
    resolve: options.resolve ?? systemResolver,
    agents: createPinnedAgents(options.connections ?? DEFAULT_CONCURRENCY),
    literalVerdicts: new Map(),
  };
  return {
    fetch: ((input: string | URL | Request, init?: RequestInit) =>
      guardedFetch(guard, input, init)) as typeof globalThis.fetch,
    transport: (req) => guardedTransport(guard, req),
    close: () => guard.agents.close(),
  };
}

async function guardedFetch(
  guard: GuardContext,
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const dispatcher = agentOrThrow(guard, url, await verdictFor(guard, url));
  return (await undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as Response;
}
