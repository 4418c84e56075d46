import type * as IpAddr from "ipaddr.js";
import { type AllowList, type IP, ipaddr } from "./allow-list.js";

/**
 * The guard's verdict on a target. `unresolved`: the name did not resolve (a DNS failure, perhaps temporary), which
 * is not a refusal: an attempt that meets it fails like a refused connection and is retried on the schedule.
 */
export type AddressVerdict =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; reason: string; unresolved?: true };

/**
 * Decides whether the sender may connect to `address`: public unicast only, unless an allow-listed network
 * contains it. IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`) IPv6 are judged as the IPv4
 * address they carry; NAT64, 6to4 and Teredo (which can carry private IPv4), private, loopback, link-local (cloud
 * metadata 169.254.169.254), CGNAT (100.100.100.200), unique-local (fd00:ec2::254), multicast, broadcast,
 * reserved, documentation, benchmarking and unspecified ranges are refused.
 *
 * @example
 * ```ts
 * checkAddress("10.0.0.1", []); // { ok: false, reason: "10.0.0.1 is a private address …" }
 * checkAddress("127.0.0.1", parseAllowList(["127.0.0.0/8"])); // { ok: true, address: "127.0.0.1", family: 4 }
 * ```
 */
export function checkAddress(address: string, allow: AllowList): AddressVerdict {
  let parsed: IP;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return { ok: false, reason: `'${address}' is not an IP address.` };
  }
  let judged: IP = parsed;
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as IpAddr.IPv6;
    if (v6.isIPv4MappedAddress()) judged = v6.toIPv4Address();
    else if (v6.parts.slice(0, 6).every((part: number) => part === 0) && v6.range() === "unicast") {
      // ::a.b.c.d (deprecated IPv4-compatible): ipaddr calls it unicast, but it names an IPv4 host.
      judged = ipaddr.fromByteArray(v6.toByteArray().slice(12));
    }
  }
  const family = parsed.kind() === "ipv4" ? 4 : 6;
  for (const [network, bits] of allow) {
    if (judged.kind() === network.kind() && judged.match(network, bits)) {
      return { ok: true, address: parsed.toString(), family };
    }
    if (parsed.kind() === network.kind() && parsed.match(network, bits)) {
      return { ok: true, address: parsed.toString(), family };
    }
  }
  const range = judged.range();
  if (range !== "unicast") {
    return {
      ok: false,
      reason: `${address} is ${describeRange(range)}; webhooks are only sent to public addresses. Allow it with --allow-networks if this is intended (e.g. local development).`,
    };
  }
  return { ok: true, address: parsed.toString(), family };
}

function describeRange(range: string): string {
  const names: Record<string, string> = {
    private: "a private address",
    loopback: "a loopback address",
    linkLocal: "a link-local address (this includes cloud metadata endpoints)",
    carrierGradeNat: "a carrier-grade NAT address (this includes cloud metadata endpoints)",
    uniqueLocal: "a unique-local address",
    multicast: "a multicast address",
    broadcast: "the broadcast address",
    unspecified: "the unspecified address",
    reserved: "a reserved or documentation address",
    benchmarking: "a benchmarking address",
    rfc6052: "a NAT64 address",
    "6to4": "a 6to4 address",
    teredo: "a Teredo address",
  };
  return names[range] ?? `in the special-purpose range '${range}'`;
}
