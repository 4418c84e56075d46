import { join } from "node:path";
import { createKeyPair, createVerifier } from "@plant-store/core";
import { openStore } from "@plant-store/store";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createDatabase, freePort, until } from "../../../test-support/processes.js";
import {
  FORWARD_SECRET,
  type Received,
  type Service,
  sendSigned,
  startService,
  verifyForward,
} from "./forward-support.js";
import { cleanup, type Running, SECRET, startReceiver, TOKEN, tempDir } from "./support.js";

afterAll(cleanup);

const PG_URL = process.env.PLANT_STORE_TEST_PG_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let service: Service | undefined;
const receivers: Running[] = [];
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.stop("SIGKILL");
  await service?.close();
  service = undefined;
  for (const drop of drops.splice(0)) await drop();
});

/** Receiver flags forwarding to `url` with a short schedule, allowed onto loopback. */
const forwardArgs = (db: string, url: string, schedule = "0,50,100,150,200,250,300,300,300,300,300,300") => [
  "--token",
  TOKEN,
  "--secret",
  SECRET,
  "--db",
  db,
  "--forward-to",
  url,
  "--forward-secret",
  FORWARD_SECRET,
  "--schedule",
  schedule,
  "--allow-networks",
  "127.0.0.0/8",
];

async function start(args: string[], port?: string): Promise<Running> {
  const r = await startReceiver(port ? [...args, "--port", port] : args);
  receivers.push(r);
  return r;
}

/** A database per backend: a SQLite file, or a fresh PostgreSQL database. */
async function database(backend: "sqlite" | "postgres"): Promise<string> {
  if (backend === "sqlite") return join(tempDir(), "receiver.db");
  const db = await createDatabase(PG_URL as string, "fwd");
  drops.push(() => db.drop());
  return db.url;
}

const backends: ("sqlite" | "postgres")[] = ["sqlite", ...(PG_URL ? (["postgres"] as const) : [])];

describe.each(backends)("forwarding (%s)", (backend) => {
  it("kill -9 while forwarding, twice: every stored event reaches the service, byte-equal, original id, signed", async () => {
    // The service fails a third of the first attempts on purpose.
    service = await startService((_r, nth) => (nth === 1 && Math.random() < 0.33 ? 503 : 200));
    const db = await database(backend);
    const port = String(await freePort());
    let receiver = await start(forwardArgs(db, service.url), port);
    const sent: { id: string; body: string }[] = [];
    const total = 90;
    for (let i = 0; i < total; i++) {
      const event = await sendSigned(receiver.url, i);
      if (event.status !== 200) throw new Error(`event ${i} answered ${event.status}`);
      sent.push(event);
      if (i === 30 || i === 60) {
        // Killed while it forwards: evidence that forwards are under way, then SIGKILL at a random moment.
        const before = service.requests.length;
        await until(() => service?.requests.length && service.requests.length > before, 30_000);
        await sleep(Math.random() * 50);
        await receiver.stop("SIGKILL");
        receiver = await start(forwardArgs(db, service.url), port);
      }
    }
    await until(() => (service?.accepted().size ?? 0) >= total, 60_000);
    const accepted = (service as Service).accepted();
    for (const event of sent) {
      const got = accepted.get(event.id);
      expect(got, event.id).toBeDefined();
      expect(got?.body.equals(Buffer.from(event.body))).toBe(true);
      expect(got?.headers["content-type"]).toBe("application/json");
      expect(got?.headers["webhook-event-type"]).toBe("newPlant");
      expect(got?.headers.authorization).toBeUndefined();
      expect(() => verifyForward(got as never, FORWARD_SECRET)).not.toThrow();
    }
    // Every event became processed once its one destination accepted it.
    await until(async () => {
      const store = await openStore(db);
      try {
        return (await store.inbox.count({ processed: false })) === 0;
      } finally {
        await store.close();
      }
    }, 30_000);
  }, 180_000);

  it("an ordered destination whose head fails for a while: the service sees commit order, no gaps", async () => {
    service = await startService((r, nth) => (r.body.includes('"id": 0,') && nth <= 4 ? 503 : 200));
    const db = await database(backend);
    const store = await openStore(db);
    await store.destinations.create({
      name: "fifo",
      url: service.url,
      ordered: true,
      secret: FORWARD_SECRET,
    });
    await store.close();
    const receiver = await start([...forwardArgs(db, service.url)].slice(0, 6).concat(schedulePart()));
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) sent.push((await sendSigned(receiver.url, i)).id);
    await until(() => (service?.accepted().size ?? 0) >= sent.length, 30_000);
    const order = (service as Service).requests.filter((r) => r.headers["webhook-id"] !== undefined);
    // The head was tried 5 times before anything behind it; after it, each event once, in commit order.
    expect(order.slice(0, 5).map((r) => r.id)).toEqual(Array(5).fill(sent[0]));
    expect([...new Set(order.map((r) => r.id))]).toEqual(sent);
    // Said once for the head, not at each of its 4 retries.
    const blocked = `destination blocked behind ${sent[0]}`;
    await until(() => receiver.stdout().includes(blocked), 30_000);
    expect(
      receiver
        .stdout()
        .split("\n")
        .filter((line) => line.includes("blocked behind")),
    ).toHaveLength(1);
  }, 60_000);

  it("holds a rate limit of 5/s at the service within ±20% over 20 events", async () => {
    service = await startService();
    const db = await database(backend);
    const store = await openStore(db);
    // Paused while the 20 events arrive, so the rate seen is the limit's, not the sending's.
    const dst = await store.destinations.create({
      name: "slow",
      url: service.url,
      rateLimit: 5,
      secret: FORWARD_SECRET,
      paused: true,
    });
    const receiver = await start([...forwardArgs(db, service.url)].slice(0, 6).concat(schedulePart()));
    for (let i = 0; i < 20; i++) await sendSigned(receiver.url, i);
    await store.destinations.resume(dst.id);
    await store.close();
    await until(() => (service?.accepted().size ?? 0) >= 20, 30_000);
    const times = (service as Service).requests.map((r) => r.at).sort((a, b) => a - b);
    const rate = (times.length - 1) / (((times.at(-1) as number) - (times[0] as number)) / 1000);
    console.log(`forward rate limit 5/s: observed ${rate.toFixed(2)}/s over ${times.length} requests`);
    expect(rate).toBeGreaterThan(4);
    expect(rate).toBeLessThan(6);
  }, 60_000);

  it("410 disables; exhausted forwards fail and a resend delivers them; pause queues and resume drains", async () => {
    let mode: "gone" | "down" | "up" = "down";
    service = await startService(() => (mode === "gone" ? 410 : mode === "down" ? 500 : 200));
    // A second destination that always accepts: what it got is evidence of what the worker claimed meanwhile.
    const witness = await startService();
    drops.push(() => witness.close());
    const db = await database(backend);
    const receiver = await start(forwardArgs(db, `${service.url},${witness.url}`, "0,20,20"));
    const first = await sendSigned(receiver.url, 1);
    const store = await openStore(db);
    try {
      const dst = await store.destinations.getByName(service.url);
      const failed = await until(async () => {
        const page = await store.outbox.listDeliveries({ subscriptionId: dst?.id, state: "failed" });
        return page.items[0];
      }, 20_000);
      expect(failed.attempts).toBe(3);
      mode = "up";
      await store.outbox.resend(failed.id);
      await until(() => service?.accepted().has(first.id), 20_000);
      await store.destinations.pause(dst?.id as string);
      const paused = await sendSigned(receiver.url, 2);
      // Its forwards committed with the witness's; the witness got it, the paused one did not.
      await until(() => witness.accepted().has(paused.id), 20_000);
      expect(service?.requests.some((r) => r.id === paused.id)).toBe(false);
      await store.destinations.resume(dst?.id as string);
      await until(() => service?.accepted().has(paused.id), 20_000);
      mode = "gone";
      await sendSigned(receiver.url, 3);
      await until(async () => (await store.destinations.get(dst?.id as string))?.enabled === false, 20_000);
      expect((await store.destinations.get(dst?.id as string))?.disabledReason).toMatch(/410/);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("refuses forward URLs that are not http(s), carry credentials or point at metadata, saying why", async () => {
    const db = await database(backend);
    for (const [url, words] of [
      ["ftp://files.example/", /http:\/\/ or https:\/\//],
      ["https://user:pw@svc.example/", /credentials/],
      ["http://169.254.169.254/latest", /metadata or link-local/],
    ] as const) {
      const failed = await startReceiver(forwardArgs(db, url)).then(
        () => "started",
        (error: Error) => error.message,
      );
      expect(failed).toMatch(words);
      expect(failed).toMatch(/--forward-to/);
    }
  }, 60_000);
});

describe("forwarding signed v1a", () => {
  it("--forward-signing both: each forward carries a v1 and a v1a signature, both valid; v1a needs a key", async () => {
    const keys = await createKeyPair();
    service = await startService();
    const db = join(tempDir(), "receiver.db");
    const refused = await startReceiver([
      ...forwardArgs(db, service.url),
      "--forward-signing",
      "asymmetric",
    ]).then(
      () => "started",
      (error: Error) => error.message,
    );
    expect(refused).toMatch(
      /--forward-signing[\s\S]*needs an ed25519 private key[\s\S]*--forward-private-key/,
    );
    // A start refused for another reason while the key is given: the message never repeats the key.
    const damaged = `${keys.privateKey.slice(0, -4)}AAAA`;
    const other = await startReceiver([
      ...forwardArgs(db, "ftp://files.example/"),
      "--forward-private-key",
      keys.privateKey,
      "--forward-private-key",
      damaged,
    ]).then(
      () => "started",
      (error: Error) => error.message,
    );
    expect(other).toMatch(/--forward-to/);
    expect(other).not.toContain(keys.privateKey);
    expect(other).not.toContain(damaged);
    const receiver = await start([
      ...forwardArgs(db, service.url),
      "--forward-signing",
      "both",
      "--forward-private-key",
      keys.privateKey,
    ]);
    const sent = await sendSigned(receiver.url, 7);
    expect(sent.status).toBe(200);
    await until(() => service?.accepted().has(sent.id) ?? false, 30_000);
    const got = (service as Service).accepted().get(sent.id) as Received;
    expect(got.body.equals(Buffer.from(sent.body))).toBe(true);
    const schemes = String(got.headers["webhook-signature"])
      .split(" ")
      .map((s) => s.split(",")[0]);
    expect(schemes.sort()).toEqual(["v1", "v1a"]);
    expect(() => verifyForward(got, FORWARD_SECRET)).not.toThrow();
    const v1aOnly = String(got.headers["webhook-signature"])
      .split(" ")
      .filter((s) => s.startsWith("v1a,"))
      .join(" ");
    const check = createVerifier({ publicKeys: [keys.publicKey] });
    const verdict = await check({
      id: String(got.headers["webhook-id"]),
      timestamp: String(got.headers["webhook-timestamp"]),
      signature: v1aOnly,
      body: got.body,
    });
    expect(verdict).toMatchObject({ ok: true });
  }, 60_000);
});

/** The token/secret/db flags plus loopback and a short schedule, without --forward-to. */
function schedulePart(): string[] {
  return ["--schedule", "0,50,100,150,200,250,300", "--allow-networks", "127.0.0.0/8"];
}

describe.skipIf(!PG_URL)("two receivers on one PostgreSQL database", () => {
  it("share the forwards: each event reaches the service once", async () => {
    service = await startService();
    const db = await database("postgres");
    const a = await start(forwardArgs(db, service.url));
    const b = await start(forwardArgs(db, service.url));
    const sent: string[] = [];
    for (let i = 0; i < 60; i++) sent.push((await sendSigned(i % 2 ? a.url : b.url, i)).id);
    await until(() => (service?.accepted().size ?? 0) >= sent.length, 30_000);
    const ids = (service as Service).requests.map((r) => r.id);
    expect(ids.length).toBe(sent.length);
    expect(new Set(ids).size).toBe(sent.length);
  }, 60_000);
});
