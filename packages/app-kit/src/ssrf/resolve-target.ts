import { lookup as dnsLookup } from "node:dns/promises";
import { type AllowList, ipaddr } from "./allow-list.js";
import { type AddressVerdict, checkAddress } from "./check-address.js";

/** Resolves a host name to every address it has (injectable for tests; default `dns.lookup` with `all`). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The default resolver: the operating system's, every address. */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Resolves the URL's host and checks every address it resolves to; the first is the one to connect to.
 * IP literals in any spelling (`2130706433`, `0x7f.1`, `127.1`, `[::ffff:7f00:1]`) are normalized by the WHATWG
 * URL parser before they get here, so they are judged as the address they really are.
 *
 * @example
 * ```ts
 * await resolveTarget(new URL("http://internal.example/"), [], resolver); // { ok: false, reason: "10.0.0.1 is …" }
 * ```
 */
export async function resolveTarget(url: URL, allow: AllowList, resolve: Resolver): Promise<AddressVerdict> {
  const host = hostOf(url);
  if (ipaddr.isValid(host)) return checkAddress(host, allow);
  let addresses: { address: string; family: number }[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    return {
      ok: false,
      reason: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? "error"}).`,
      unresolved: true,
    };
  }
  if (addresses.length === 0)
    return { ok: false, reason: `${host} resolves to no address.`, unresolved: true };
  // Every address must pass: otherwise a name with one public and one private record could be steered inside.
  let first: AddressVerdict | null = null;
  for (const { address } of addresses) {
    const verdict = checkAddress(address, allow);
    if (!verdict.ok) return { ok: false, reason: `${host} resolves to ${verdict.reason}` };
    first ??= verdict;
  }
  return first as AddressVerdict;
}

/**
 * The URL's host name, or its IP literal without the brackets of IPv6.
 *
 * @example
 * ```ts
 * hostOf(new URL("http://[::1]/")); // "::1"
 * ```
 */
export function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}
