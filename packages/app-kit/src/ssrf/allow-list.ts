import { createRequire } from "node:module";
import type * as IpAddr from "ipaddr.js";

// ipaddr.js is CommonJS with `export =`; required, so its types and runtime agree without interop flags.
/** ipaddr.js, loaded once for the guard's modules. */
export const ipaddr = createRequire(import.meta.url)("ipaddr.js") as typeof IpAddr;

/** A parsed IPv4 or IPv6 address. */
export type IP = IpAddr.IPv4 | IpAddr.IPv6;

/** Parsed `--allow-networks` entries. */
export type AllowList = readonly [IP, number][];

/**
 * Parses CIDR strings (`127.0.0.0/8`, `::1/128`, `10.1.2.3` = a single host).
 *
 * @example
 * ```ts
 * const allow = parseAllowList(["127.0.0.0/8"]);
 * ```
 */
export function parseAllowList(cidrs: readonly string[]): AllowList {
  return cidrs.map((cidr) => {
    try {
      return cidr.includes("/")
        ? ipaddr.parseCIDR(cidr)
        : ([ipaddr.parse(cidr), ipaddr.parse(cidr).kind() === "ipv4" ? 32 : 128] as [IP, number]);
    } catch {
      throw new Error(`'${cidr}' is not an IP network in CIDR notation (e.g. 127.0.0.0/8 or fd00::/8).`);
    }
  });
}
