import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { afterAll, describe, expect, it } from "vitest";
import type { Running } from "../../../test-support/processes.js";
import { background, CLI, cli, listeningUrl, RECEIVER_BIN, SENDER_BIN, until } from "./support.js";

// A document with two webhooks no code is written for (see test-support/fixtures/multi-webhook.yaml).
const FIXTURE = fileURLToPath(new URL("../../../test-support/fixtures/multi-webhook.yaml", import.meta.url));
const SPEC = ["--spec", FIXTURE];
const running: Running[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const proc of running) await proc.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A plant-store-receiver on the fixture document, with fresh credentials; stopped after the file. */
async function fixtureReceiver() {
  const token = createToken();
  const secret = createSecret();
  const admin = createToken();
  const args = [
    "--port",
    "0",
    "--token",
    token,
    "--secret",
    secret,
    "--admin-token",
    admin,
    "--db",
    ":memory:",
  ];
  const receiver = await background(RECEIVER_BIN, [...args, ...SPEC], (out) => listeningUrl(out));
  running.push(receiver);
  return { token, secret, admin, receiver };
}

describe("the CLI follows the catalog: every command works for any webhook of the document", () => {
  it("events lists the contract's webhooks, and a document's with --spec", async () => {
    const builtIn = await cli(["events"]);
    expect(builtIn.code).toBe(0);
    expect(builtIn.stdout).toMatch(/newPlant {2}New Plant {2}POST \/plant\/webhook/);
    expect(builtIn.stdout).toContain("payload: name* tag id*");
    const listed = await cli(["events", ...SPEC, "--json"]);
    expect(listed.code).toBe(0);
    const catalog = JSON.parse(listed.stdout) as { type: string; path: string }[];
    expect(catalog.map((entry) => `${entry.type} ${entry.path}`)).toEqual([
      "newPlant /plant/webhook",
      "plantSold /plant/sold",
      "inventoryChanged /inventory/changed",
    ]);
  });

  it("example and validate take --event by type, path or name", async () => {
    const example = await cli(["example", ...SPEC, "--event", "/plant/sold"]);
    expect(example.code).toBe(0);
    expect(JSON.parse(example.stdout)).toMatchObject({ price: { currency: "EUR" } });
    const valid = await cli(["validate", ...SPEC, "--event", "plantSold", "-"], { input: example.stdout });
    expect(valid.code).toBe(0);
    const invalid = await cli(["validate", ...SPEC, "--event", "Inventory Changed", "-"], {
      input: '{"status":"gone","locations":[]}',
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toMatch(/\/status: status must be one of "in_stock", "low", "sold_out"/);
    expect(invalid.stdout).toMatch(/\/locations: locations must have at least 1 items/);
    const unknown = await cli(["validate", ...SPEC, "--event", "plantEaten", "-"], { input: "{}" });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /Unknown event "plantEaten"\. Known events: newPlant .*plantSold .*inventoryChanged/,
    );
    const badSpec = await cli(["events", "--spec", "/nonexistent/openapi.yaml"]);
    expect(badSpec.code).toBe(2);
    expect(badSpec.stderr).toMatch(
      /Cannot read the OpenAPI document \/nonexistent\/openapi\.yaml \(ENOENT\)/,
    );
  });

  it("send --event reaches a receiver started on the same document; a bad payload gets its 422", async () => {
    const { token, secret, admin, receiver } = await fixtureReceiver();
    const base = receiver.info;
    const sold = await cli([
      "send",
      `${base}/plant/sold`,
      ...SPEC,
      "--event",
      "plantSold",
      "--data",
      '{"plantId":9007199254740993,"price":{"amount":1250,"currency":"EUR"}}',
      "--token",
      token,
      "--secret",
      secret,
      "--json",
    ]);
    expect(sold.code).toBe(0);
    expect(JSON.parse(sold.stdout)).toMatchObject({ status: 200 });
    // One URL, several event types: the header names the type.
    const viaHeader = await cli([
      "send",
      `${base}/plant/webhook`,
      ...SPEC,
      "--event",
      "inventoryChanged",
      "--token",
      token,
      "--secret",
      secret,
      "--json",
    ]);
    expect(JSON.parse(viaHeader.stdout)).toMatchObject({ status: 200 });
    const refused = await cli([
      "send",
      `${base}/inventory/changed`,
      ...SPEC,
      "--event",
      "inventoryChanged",
      "--data",
      '{"status":"low","locations":["a"],"counts":[2147483648]}',
      "--token",
      token,
      "--secret",
      secret,
      "--json",
    ]);
    expect(refused.code).toBe(1);
    const answer = JSON.parse(refused.stdout) as { status: number; body: string };
    expect(answer.status).toBe(422);
    expect(answer.body).toMatch(/At \/counts\/0: .*int32/);
    // The inbox keeps each event's type; /events?type= lists one type, the int64 exact as sent.
    const listed = async (type: string) => {
      const res = await fetch(`${base}/events?type=${type}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(res.status).toBe(200);
      return (await res.text()) as string;
    };
    const soldPage = await listed("plantSold");
    expect(soldPage).toContain('"type":"plantSold"');
    expect(soldPage).toContain('"plantId":9007199254740993');
    expect(soldPage).not.toContain("inventoryChanged");
    expect(JSON.parse(await listed("inventoryChanged")).data).toHaveLength(1);
    expect(JSON.parse(await listed("newPlant")).data).toEqual([]);
  }, 120_000);

  it("the sender publishes a document's webhook to the subscriptions that take its type, and they receive it", async () => {
    const { token, secret, admin, receiver } = await fixtureReceiver();
    const sender = await background(
      SENDER_BIN,
      ["--port", "0", "--admin-token", admin, "--db", ":memory:", "--allow-networks", "127.0.0.0/8", ...SPEC],
      (out) => listeningUrl(out),
    );
    running.push(sender);
    const env = { PLANT_STORE_SENDER_URL: sender.info, PLANT_STORE_ADMIN_TOKEN: admin };
    const admin$ = async (args: string[]) => {
      const result = await cli([...args, "--json"], { env });
      return { ...result, value: result.stdout ? JSON.parse(result.stdout) : null };
    };
    // One URL for the types it takes: Plant Sold only (a typo'd type is refused, naming the known ones).
    const typo = await admin$([
      "subscriptions",
      "add",
      `${receiver.info}/plant/webhook`,
      "--event-types",
      "plantSould",
    ]);
    expect(typo.code).not.toBe(0);
    expect(typo.stderr + typo.stdout).toMatch(/Unknown event "plantSould"/);
    const sub = await admin$([
      "subscriptions",
      "add",
      `${receiver.info}/plant/webhook`,
      "--token",
      token,
      "--secret",
      secret,
      "--event-types",
      "plantSold",
    ]);
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.value.eventTypes).toEqual(["plantSold"]);
    const sold = await admin$([
      "publish",
      ...SPEC,
      "--event",
      "plantSold",
      "--data",
      '{"plantId":9007199254740993,"price":{"amount":5,"currency":"USD"}}',
    ]);
    expect(sold.code, sold.stderr).toBe(0);
    expect(sold.value.deliveries).toBe(1);
    const plant = await admin$(["publish"]); // New Plant: this subscription does not take it
    expect(plant.value.deliveries).toBe(0);
    const bad = await admin$(["publish", ...SPEC, "--event", "plantSold", "--data", '{"plantId":1}']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr + bad.stdout).toMatch(/\/price/);
    const page = await until(async () => {
      const res = await fetch(`${receiver.info}/events?type=plantSold`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      const text = await res.text();
      return text.includes("9007199254740993") && text;
    }, 60_000);
    expect(page).toContain('"type":"plantSold"');
    expect(page).toContain('"webhook-event-type":"plantSold"');
  }, 120_000);

  it("listen keeps what it received, retries a failed forward with backoff, and replay sends it again", async () => {
    // A downstream that refuses the first two forwards, then takes everything.
    const seen: { type: string | undefined; id: string | undefined; body: string }[] = [];
    let refusals = 2;
    const downstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        seen.push({
          type: req.headers["webhook-event-type"] as string | undefined,
          id: req.headers["webhook-id"] as string | undefined,
          body: Buffer.concat(chunks).toString(),
        });
        res.statusCode = refusals-- > 0 ? 503 : 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => downstream.listen(0, "127.0.0.1", resolve));
    const forwardTo = `http://127.0.0.1:${(downstream.address() as AddressInfo).port}/hook`;
    try {
      const dir = mkdtempSync(join(tmpdir(), "plant-store-listen-"));
      dirs.push(dir);
      const db = join(dir, "listen.db");
      const token = createToken();
      const secret = createSecret();
      const listener = await background(
        CLI,
        [
          "listen",
          "--port",
          "0",
          ...SPEC,
          "--token",
          token,
          "--secret",
          secret,
          "--db",
          db,
          "--forward-to",
          forwardTo,
          "--json",
        ],
        (_out, err) => err.split("\n").find((line) => line.includes('"listening"')),
      );
      running.push(listener);
      const intro = JSON.parse(listener.info) as { events: { type: string; url: string }[] };
      const soldUrl = intro.events.find((event) => event.type === "plantSold")?.url as string;
      const sent = await cli([
        "send",
        soldUrl,
        ...SPEC,
        "--event",
        "plantSold",
        "--token",
        token,
        "--secret",
        secret,
        "--json",
      ]);
      // The sender is answered once the event is stored, whatever the downstream does.
      expect(JSON.parse(sent.stdout)).toMatchObject({ status: 200 });
      const line = await until(
        () =>
          listener
            .stdout()
            .split("\n")
            .find((l) => l.includes('"plantSold"')),
        60_000,
      );
      const printed = JSON.parse(line) as { type: string; forwarded: { status: number; attempts: number } };
      expect(printed.forwarded).toMatchObject({ status: 200, attempts: 3 });
      expect(listener.stderr()).toMatch(/"retry":\{"attempt":1,"of":6,"waitMs":1000,"why":"answered 503"\}/);
      expect(seen.map((request) => request.type)).toEqual(["plantSold", "plantSold", "plantSold"]);
      const webhookId = seen[0]?.id as string;
      await listener.stop();

      // Replayed from the store listen kept, signed anew with the same webhook-id.
      const replayed = await cli([
        "replay",
        "--db",
        db,
        "--forward-to",
        forwardTo,
        "--id",
        webhookId,
        "--secret",
        secret,
        "--json",
      ]);
      expect(replayed.code).toBe(0);
      expect(JSON.parse(replayed.stdout)).toEqual({ webhookId, status: 200, error: null });
      expect(seen.at(-1)).toMatchObject({ type: "plantSold", id: webhookId, body: seen[0]?.body });
      const nothing = await cli(["replay", "--db", db, "--forward-to", forwardTo, "--failed"]);
      expect(nothing.code).toBe(0);
      expect(nothing.stderr).toContain("nothing replayed");
      const usage = await cli(["replay", "--db", db, "--forward-to", forwardTo]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/Which events\?/);
    } finally {
      await new Promise<void>((resolve) => downstream.close(() => resolve()));
    }
  }, 120_000);
});
