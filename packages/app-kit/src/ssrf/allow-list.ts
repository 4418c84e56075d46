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

/**
 * Addresses no allow-list may open: cloud metadata services (AWS/GCP/Azure 169.254.169.254, Alibaba 100.100.100.200,
 * AWS IPv6 fd00:ec2::254) and the link-local ranges they sit in.
 */
const NEVER_ALLOWED = ["169.254.169.254", "169.254.0.1", "100.100.100.200", "fd00:ec2::254", "fe80::1"];

/**
 * Refuses an allow-list with a network that holds a cloud metadata or link-local address: the receiver forwards to
 * addresses its operator chose, and even a broad allow-list (`0.0.0.0/0`) must not reach those.
 *
 * @example
 * ```ts
 * refuseMetadataNetworks(parseAllowList(["10.0.0.0/8"])); // fine
 * refuseMetadataNetworks(parseAllowList(["169.254.0.0/16"])); // throws, naming the address
 * ```
 */
export function refuseMetadataNetworks(allow: AllowList): AllowList {
  for (const [network, bits] of allow) {
    for (const text of NEVER_ALLOWED) {
      const address = ipaddr.parse(text);
      if (address.kind() === network.kind() && address.match(network, bits)) {
        throw new Error(
          `${network.toString()}/${bits} holds ${text}, a cloud metadata or link-local address, which is always refused; allow narrower networks.`,
        );
      }
    }
  }
  return allow;
}
