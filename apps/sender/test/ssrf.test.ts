import { createServer } from "node:http";
import { BLOCKED_ADDRESS_CODE, createToken, deliver } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkAddress,
  createGuardedFetch,
  parseAllowList,
  type Resolver,
  resolveTarget,
  UNRESOLVED_CODE,
} from "../src/ssrf.js";

const none = parseAllowList([]);
const fixed =
  (map: Record<string, string[]>): Resolver =>
  async (host) => {
    const addresses = map[host];
    if (!addresses) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
const resolver = fixed({
  "internal.example": ["10.0.0.1"],
  "mixed.example": ["93.184.216.34", "192.168.1.1"],
  "public.example": ["93.184.216.34"],
  "metadata.example": ["169.254.169.254"],
});

describe("SSRF guard: every spelling of an internal address is refused", () => {
  it.each([
    "http://2130706433/", // decimal 127.0.0.1
    "http://0177.0.0.1/", // octal
    "http://0x7f.1/", // hex, short form
    "http://127.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/", // IPv4-compatible
    "http://0.0.0.0/",
    "http://[::]/",
    "http://[::1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://100.100.100.200/",
    "http://[fe80::1]/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://192.0.2.1/", // documentation
    "http://[64:ff9b::a00:1]/", // NAT64 of 10.0.0.1
    "http://[2002:a00:1::]/", // 6to4 of 10.0.0.1
    "http://internal.example/", // a name that resolves to 10.0.0.1
    "http://Internal.Example:8080/", // case and port do not matter
    "http://metadata.example/",
    "http://mixed.example/", // one private record is enough to refuse
  ])("%s", async (url) => {
    const verdict = await resolveTarget(new URL(url), none, resolver);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/address|resolves|range/);
  });

  it("accepts public addresses and names", async () => {
    expect(await resolveTarget(new URL("https://93.184.216.34/"), none, resolver)).toMatchObject({
      ok: true,
    });
    expect(await resolveTarget(new URL("https://public.example/"), none, resolver)).toEqual({
      ok: true,
      address: "93.184.216.34",
      family: 4,
    });
    expect(checkAddress("2606:4700::1111", none)).toMatchObject({ ok: true, family: 6 });
  });

  it("lets --allow-networks open exactly what it names", async () => {
    const allow = parseAllowList(["127.0.0.0/8", "10.1.0.0/16"]);
    expect(checkAddress("127.0.0.1", allow).ok).toBe(true);
    expect(checkAddress("::ffff:127.0.0.1", allow).ok).toBe(true);
    expect(checkAddress("10.1.2.3", allow).ok).toBe(true);
    expect(checkAddress("10.2.0.1", allow).ok).toBe(false);
    expect(checkAddress("::1", allow).ok).toBe(false);
    expect(() => parseAllowList(["not-a-network"])).toThrow(/CIDR/);
  });

  it("reports a name that does not resolve", async () => {
    expect(await resolveTarget(new URL("http://nowhere.example/"), none, resolver)).toEqual({
      ok: false,
      reason: "nowhere.example does not resolve (ENOTFOUND).",
      unresolved: true,
    });
  });
});

describe("guarded fetch", () => {
  let server: ReturnType<typeof createServer>;
  let port: number;
  const hosts: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hosts.push(req.headers.host ?? "");
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("connects to the address it checked, resolving once per request (no second lookup to rebind)", async () => {
    let lookups = 0;
    const answers = ["127.0.0.1", "10.0.0.1"]; // a rebinding DNS server: public-looking first, internal second
    const guard = createGuardedFetch({
      allow: parseAllowList(["127.0.0.0/8"]),
      resolve: async () => [{ address: answers[Math.min(lookups++, 1)] as string, family: 4 }],
    });
    const res = await guard.fetch(`http://plants.test:${port}/plant/webhook`);
    expect(await res.text()).toBe("ok");
    expect(lookups).toBe(1);
    expect(hosts.at(-1)).toBe(`plants.test:${port}`); // the Host header keeps the name
    // The next request resolves again, gets the internal answer, and is refused before connecting.
    const refused = await guard.fetch(`http://plants.test:${port}/plant/webhook`).catch((e: unknown) => e);
    expect((refused as { code?: string }).code).toBe(BLOCKED_ADDRESS_CODE);
    expect(lookups).toBe(2);
    expect(hosts).toHaveLength(1);
    await guard.close();
  });

  it("offers the same guard as a core transport over undici's request: pinned, capped, redirects not followed", async () => {
    let lookups = 0;
    const answers = ["127.0.0.1", "10.0.0.1"];
    const guard = createGuardedFetch({
      allow: parseAllowList(["127.0.0.0/8"]),
      resolve: async () => [{ address: answers[Math.min(lookups++, 1)] as string, family: 4 }],
    });
    const before = hosts.length;
    const outcome = await deliver(
      { url: `http://plants.test:${port}/plant/webhook`, token: createToken(), secrets: [] },
      { id: "msg_transport", body: "{}" },
      { transport: guard.transport, maxResponseBytes: 1 },
    );
    expect(outcome).toMatchObject({ kind: "delivered", status: 200, responseBody: "o" });
    expect(hosts.slice(before)).toEqual([`plants.test:${port}`]);
    const refused = await deliver(
      { url: `http://plants.test:${port}/plant/webhook`, token: createToken(), secrets: [] },
      { id: "msg_transport", body: "{}" },
      { transport: guard.transport },
    );
    expect(refused.kind).toBe("failed");
    expect(refused.error).toMatch(/SSRF guard/);
    expect(hosts.length).toBe(before + 1);
    expect(lookups).toBe(2);
    await guard.close();

    const paths: string[] = [];
    const redirecting = createServer((req, res) => {
      paths.push(req.url ?? "");
      res.writeHead(302, { location: "https://u:pw@elsewhere.example/hook?api_key=s3cret-key&v=2" }).end();
    });
    await new Promise<void>((r) => redirecting.listen(0, "127.0.0.1", r));
    const other = createGuardedFetch({ allow: parseAllowList(["127.0.0.0/8"]) });
    const redirected = await deliver(
      {
        url: `http://127.0.0.1:${(redirecting.address() as { port: number }).port}/plant/webhook`,
        token: createToken(),
        secrets: [],
      },
      { id: "msg_transport", body: "{}" },
      { transport: other.transport },
    );
    expect(redirected).toMatchObject({ kind: "retry", status: 302 });
    expect(redirected.error).toMatch(/redirects are not followed/);
    // Stored and logged: the Location's password and query values are masked, its names kept.
    expect(redirected.error).toContain("to https://…@elsewhere.example/hook?api_key=…&v=…;");
    expect(redirected.error).not.toMatch(/s3cret|pw@/);
    expect(paths).toEqual(["/plant/webhook"]);
    await other.close();
    await new Promise<void>((r) => redirecting.close(() => r()));
  });

  it("reads a response body of declared length whole, and a streamed or longer one up to the cap", async () => {
    const bodies: Record<string, (res: import("node:http").ServerResponse) => void> = {
      "/declared": (res) => res.end("grün ok"), // content-length: 8 bytes
      "/chunked": (res) => {
        res.write("a".repeat(3000));
        res.end("b".repeat(3000)); // no content-length: chunked
      },
      "/long": (res) => res.end("c".repeat(10_000)),
    };
    const sink = createServer((req, res) => bodies[req.url ?? ""]?.(res));
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
    const guard = createGuardedFetch({ allow: parseAllowList(["127.0.0.0/8"]) });
    const send = (path: string, maxResponseBytes?: number) =>
      deliver(
        { url: `${base}${path}`, token: createToken(), secrets: [] },
        { id: "msg_body", body: "{}" },
        { transport: guard.transport, ...(maxResponseBytes && { maxResponseBytes }) },
      );
    expect(await send("/declared")).toMatchObject({ kind: "delivered", responseBody: "grün ok" });
    expect((await send("/declared", 4)).responseBody).toBe("grü");
    expect((await send("/chunked")).responseBody).toBe("a".repeat(3000) + "b".repeat(1096));
    expect((await send("/long")).responseBody).toBe("c".repeat(4096));
    // Nothing was left pending: the next attempt goes through.
    expect(await send("/declared")).toMatchObject({ kind: "delivered", responseBody: "grün ok" });
    await guard.close();
    await new Promise<void>((r) => sink.close(() => r()));
  });

  it("ends an attempt at its deadline, whether the headers or the body are late", async () => {
    const sink = createServer((req, res) => {
      if (req.url === "/silent") return; // never answers
      res.writeHead(503, { "content-type": "text/plain" });
      res.write("partial"); // then stalls
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
    const guard = createGuardedFetch({ allow: parseAllowList(["127.0.0.0/8"]) });
    const send = (path: string) =>
      deliver(
        { url: `${base}${path}`, token: createToken(), secrets: [] },
        { id: "msg_late", body: "{}" },
        { transport: guard.transport, timeoutMs: 200 },
      );
    expect(await send("/silent")).toMatchObject({
      kind: "retry",
      error: "The attempt timed out after 200 ms.",
    });
    const stalled = await send("/stalled");
    expect(stalled).toMatchObject({ kind: "retry", status: 503 });
    expect(stalled.error).toMatch(/Reading the response body failed: timed out after 200 ms\.$/);
    await guard.close();
    sink.closeAllConnections();
    await new Promise<void>((r) => sink.close(() => r()));
  });

  it("retries a name that does not resolve (DNS can fail for a while); only a forbidden address fails at once", async () => {
    let failing = true;
    const guard = createGuardedFetch({
      allow: parseAllowList(["127.0.0.0/8"]),
      resolve: async (host) => {
        if (failing) throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: "EAI_AGAIN" });
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    const send = () =>
      deliver(
        { url: `http://hooks.example.test:${port}/plant/webhook`, token: createToken(), secrets: [] },
        { id: "msg_dns", body: "{}" },
        { transport: guard.transport, timeoutMs: 2_000 },
      );
    const first = await send();
    expect(first).toMatchObject({ kind: "retry", error: "hooks.example.test does not resolve (EAI_AGAIN)." });
    expect(first.error).not.toMatch(/SSRF/);
    const thrown = await guard.fetch(`http://hooks.example.test:${port}/`).catch((e: unknown) => e);
    expect((thrown as { code?: string }).code).toBe(UNRESOLVED_CODE);
    failing = false;
    expect(await send()).toMatchObject({ kind: "delivered", status: 200 });
    await guard.close();
  });

  it("counts the DNS lookup within the attempt's deadline: a resolver that stalls ends the attempt on time", async () => {
    const lookups: string[] = [];
    const guard = createGuardedFetch({
      allow: parseAllowList(["127.0.0.0/8"]),
      resolve: (host) => {
        lookups.push(host);
        return new Promise(() => {}); // never answers
      },
    });
    const outcome = await deliver(
      { url: `http://stalled-dns.test:${port}/plant/webhook`, token: createToken(), secrets: [] },
      { id: "msg_slow_dns", body: "{}" },
      { transport: guard.transport, timeoutMs: 200 },
    );
    expect(outcome).toMatchObject({ kind: "retry", error: "The attempt timed out after 200 ms." });
    expect(lookups).toEqual(["stalled-dns.test"]);
    await guard.close();
  });

  it("judges an IP literal the same on every attempt", async () => {
    const allowed = createGuardedFetch({ allow: parseAllowList(["127.0.0.0/8"]) });
    const refused = createGuardedFetch({ allow: none });
    for (let i = 0; i < 3; i++) {
      const ok = await allowed.fetch(`http://127.0.0.1:${port}/`);
      expect(await ok.text()).toBe("ok");
      const no = await refused.fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
      expect((no as { code?: string }).code).toBe(BLOCKED_ADDRESS_CODE);
      const mapped = await refused.fetch(`http://[::ffff:7f00:1]:${port}/`).catch((e: unknown) => e);
      expect((mapped as { code?: string }).code).toBe(BLOCKED_ADDRESS_CODE);
    }
    await allowed.close();
    await refused.close();
  });

  it("refuses loopback without an allow-list entry", async () => {
    const guard = createGuardedFetch({ allow: none });
    const refused = await guard.fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/loopback/);
    expect((refused as { code?: string }).code).toBe(BLOCKED_ADDRESS_CODE);
    await guard.close();
  });
});
