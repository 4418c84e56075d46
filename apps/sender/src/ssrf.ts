import { lookup as dnsLookup } from "node:dns/promises";
import { EventEmitter } from "node:events";
import { createRequire } from "node:module";
import type { LookupFunction } from "node:net";
import { BLOCKED_ADDRESS_CODE, readCappedChunks, type Transport } from "@plant-store/core";
import type * as IpAddr from "ipaddr.js";
import { Agent, type Dispatcher, fetch as undiciFetch } from "undici";

// ipaddr.js is CommonJS with `export =`; required, so its types and runtime agree without interop flags.
const ipaddr = createRequire(import.meta.url)("ipaddr.js") as typeof IpAddr;
type IP = IpAddr.IPv4 | IpAddr.IPv6;

/** Resolves a host name to every address it has (injectable for tests; default `dns.lookup` with `all`). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** Why a target is refused, or the address to connect to. */
/**
 * The guard's verdict on a target. `unresolved`: the name did not resolve (a DNS failure, perhaps temporary), which
 * is not a refusal: an attempt that meets it fails like a refused connection and is retried on the schedule.
 */
export type AddressVerdict =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; reason: string; unresolved?: true };

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

/** The URL's host name, or its IP literal without the brackets of IPv6. */
function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/** The `code` of a guarded attempt whose host name did not resolve (retried, unlike a refusal). */
export const UNRESOLVED_CODE = "ERR_PLANT_STORE_UNRESOLVED";

/** `work`, or the deadline's reason if it fires first (the work itself cannot be cancelled: it is left to finish). */
function beforeDeadline<T>(work: Promise<T>, deadline: EventEmitter & { reason?: Error }): Promise<T> {
  if (deadline.reason) return Promise.reject(deadline.reason);
  return new Promise<T>((resolve, reject) => {
    const expire = () => reject(deadline.reason);
    deadline.once("abort", expire);
    work.then(
      (value) => {
        deadline.off("abort", expire);
        resolve(value);
      },
      (error: unknown) => {
        deadline.off("abort", expire);
        reject(error);
      },
    );
  });
}

/** The default resolver: the operating system's, every address. */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A `fetch` and a core `Transport` that refuse what the policy refuses and connect only to the address checked. */
export interface GuardedFetch {
  fetch: typeof globalThis.fetch;
  /** The same guard for core's `deliver({ transport })`, over undici's `request` (about half fetch's CPU per delivery). */
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
  const resolve = options.resolve ?? systemResolver;
  const agents = new Map<string, Agent>();
  const agentFor = (origin: string, address: string, family: 4 | 6): Agent => {
    const key = `${origin}|${address}`;
    let agent = agents.get(key);
    if (!agent) {
      const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
        if (lookupOptions?.all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address, family },
          ]);
        } else callback(null, address, family);
      };
      agent = new Agent({
        connect: { lookup },
        connections: options.connections ?? 64,
        keepAliveTimeout: 30_000,
      });
      agents.set(key, agent);
    }
    return agent;
  };
  // An IP literal's verdict depends only on the literal and the allowlist: judged once, not at every attempt
  // (host names are resolved and judged at every attempt). Bounded, so hostile input cannot grow it.
  const literalVerdicts = new Map<string, AddressVerdict>();
  const verdictFor = (url: URL): AddressVerdict | Promise<AddressVerdict> => {
    const cached = literalVerdicts.get(url.hostname);
    if (cached) return cached;
    const host = hostOf(url);
    if (!ipaddr.isValid(host)) return resolveTarget(url, options.allow, resolve);
    const verdict = checkAddress(host, options.allow);
    if (literalVerdicts.size >= 1024) literalVerdicts.clear();
    literalVerdicts.set(url.hostname, verdict);
    return verdict;
  };
  const agentOrThrow = (url: URL, verdict: AddressVerdict): Agent => {
    if (verdict.ok) return agentFor(url.origin, verdict.address, verdict.family);
    if (verdict.unresolved) throw Object.assign(new Error(verdict.reason), { code: UNRESOLVED_CODE });
    throw Object.assign(new Error(`Refused by the SSRF guard: ${verdict.reason}`), {
      code: BLOCKED_ADDRESS_CODE,
    });
  };
  const dispatcherFor = async (url: URL): Promise<Agent> => agentOrThrow(url, await verdictFor(url));
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const dispatcher = await dispatcherFor(url);
    return (await undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as Response;
  };
  const transport: Transport = async (req) => {
    // The attempt's deadline (DNS, connection, headers and body) on an EventEmitter, which undici accepts as a
    // signal (it reads `reason` and listens for `abort`): core's AbortController and its timer, made only when
    // `signal` is read, were about a sixth of an attempt's instructions.
    const deadline = new EventEmitter() as EventEmitter & { reason?: Error };
    const timer = setTimeout(() => {
      deadline.reason = Object.assign(new Error(`timed out after ${req.timeoutMs} ms`), {
        name: "TimeoutError",
      });
      deadline.emit("abort");
    }, req.timeoutMs);
    let response: Dispatcher.ResponseData;
    try {
      const url = new URL(req.url);
      const verdict = verdictFor(url);
      // A host name's lookup counts within the deadline: a resolver that stalls must not hold the attempt past
      // its timeout (and its lease). An IP literal's verdict is at hand.
      const dispatcher = agentOrThrow(
        url,
        verdict instanceof Promise ? await beforeDeadline(verdict, deadline) : verdict,
      );
      // undici's request follows no redirects; the body is read (capped) by deliver through readBody. Straight to
      // the Agent with origin and path: the top-level request(url) would only derive the same two from the URL.
      response = await dispatcher.request({
        origin: url.origin,
        path: url.search ? url.pathname + url.search : url.pathname,
        method: req.method as "POST",
        headers: req.headers,
        body: req.body,
        signal: deadline,
      });
    } catch (error) {
      clearTimeout(timer);
      throw error;
    }
    const headers = response.headers;
    return {
      status: response.statusCode,
      headers: {
        get(name) {
          const value = headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
        },
      },
      readBody: () => {
        // A body whose length is declared and within the cap is read in one go (undici frames it to that length);
        // otherwise it is streamed and cut at the cap. Either way the deadline ends with the body.
        const length = Number(headers["content-length"] ?? Number.NaN);
        const body =
          length <= req.maxResponseBytes
            ? response.body.text()
            : readCappedChunks(response.body[Symbol.asyncIterator](), req.maxResponseBytes);
        return body.finally(() => clearTimeout(timer));
      },
    };
  };
  return {
    fetch: guarded as typeof globalThis.fetch,
    transport,
    async close() {
      await Promise.all([...agents.values()].map((agent) => agent.close()));
      agents.clear();
    },
  };
}
