import type { LookupFunction } from "node:net";
import { Agent } from "undici";

/** Keep-alive connections idle longer than this are closed. */
const KEEP_ALIVE_MS = 30_000;

/** undici Agents, one per (origin, checked address), each connecting only to its address. */
export interface PinnedAgents {
  /** The Agent for `origin` that connects to `address`, made on first use and reused (keep-alive). */
  agentFor(origin: string, address: string, family: 4 | 6): Agent;
  close(): Promise<void>;
}

/**
 * A pool of Agents whose `lookup` returns the address already checked: no second DNS lookup, so a rebinding DNS
 * server cannot switch the address between check and connect. TLS still verifies the certificate for the host name.
 *
 * @example
 * ```ts
 * const agents = createPinnedAgents(64);
 * const agent = agents.agentFor("https://example.com", "93.184.216.34", 4);
 * ```
 */
export function createPinnedAgents(connections: number): PinnedAgents {
  const agents = new Map<string, Agent>();
  return {
    agentFor(origin, address, family) {
      const key = `${origin}|${address}`;
      let agent = agents.get(key);
      if (!agent) {
        agent = new Agent({
          connect: { lookup: pinnedLookup(address, family) },
          connections,
          keepAliveTimeout: KEEP_ALIVE_MS,
        });
        agents.set(key, agent);
      }
      return agent;
    },
    async close() {
      await Promise.all([...agents.values()].map((agent) => agent.close()));
      agents.clear();
    },
  };
}

/** A `lookup` that answers every name with one address. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if (lookupOptions?.all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    } else callback(null, address, family);
  };
}
