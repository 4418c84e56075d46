import { BLOCKED_ADDRESS_CODE } from "@plant-store/core";
import type { Agent } from "undici";
import { type AllowList, ipaddr } from "./allow-list.js";
import { type AddressVerdict, checkAddress } from "./check-address.js";
import type { PinnedAgents } from "./pinned-agents.js";
import { hostOf, type Resolver, resolveTarget } from "./resolve-target.js";

/** The `code` of a guarded attempt whose host name did not resolve (retried, unlike a refusal). */
export const UNRESOLVED_CODE = "ERR_PLANT_STORE_UNRESOLVED";

/** IP literals' verdicts kept at most: hostile input cannot grow the cache beyond it. */
const MAX_LITERAL_VERDICTS = 1024;

/** What every guarded request works with: the policy, the resolver, the pinned Agents and the literal cache. */
export interface GuardContext {
  allow: AllowList;
  resolve: Resolver;
  agents: PinnedAgents;
  /** An IP literal's verdict depends only on the literal and the allowlist: judged once, not at every attempt. */
  literalVerdicts: Map<string, AddressVerdict>;
}

/**
 * The verdict on a URL's host: an IP literal's is at hand (cached); a host name is resolved and judged at every
 * attempt.
 *
 * @example
 * ```ts
 * const verdict = await verdictFor(guard, new URL("https://example.com/hook"));
 * ```
 */
export function verdictFor(guard: GuardContext, url: URL): AddressVerdict | Promise<AddressVerdict> {
  const cached = guard.literalVerdicts.get(url.hostname);
  if (cached) return cached;
  const host = hostOf(url);
  if (!ipaddr.isValid(host)) return resolveTarget(url, guard.allow, guard.resolve);
  const verdict = checkAddress(host, guard.allow);
  if (guard.literalVerdicts.size >= MAX_LITERAL_VERDICTS) guard.literalVerdicts.clear();
  guard.literalVerdicts.set(url.hostname, verdict);
  return verdict;
}

/**
 * The Agent pinned to the verdict's address, or the error the verdict means: core's `BLOCKED_ADDRESS_CODE` for a
 * refusal (failed, not retried), {@link UNRESOLVED_CODE} for a name that did not resolve (retried).
 *
 * @example
 * ```ts
 * const agent = agentOrThrow(guard, url, await verdictFor(guard, url));
 * ```
 */
export function agentOrThrow(guard: GuardContext, url: URL, verdict: AddressVerdict): Agent {
  if (verdict.ok) return guard.agents.agentFor(url.origin, verdict.address, verdict.family);
  if (verdict.unresolved) throw Object.assign(new Error(verdict.reason), { code: UNRESOLVED_CODE });
  throw Object.assign(new Error(`Refused by the SSRF guard: ${verdict.reason}`), {
    code: BLOCKED_ADDRESS_CODE,
  });
}
