import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createVerifier } from "@plant-store/core";
import { operationalCatalog } from "@plant-store/spec";
import ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender, type Sender } from "../src/index.js";
import { ADMIN, api, type Sink, sink, until } from "./support.js";

// The sender's own events (spec/operational.yaml) reach the operator's endpoint signed, and valid against their
// document, as New Plant reaches a customer's.
let dir: string;
let sender: Sender;
let base: string;
let operator: Sink;
let customer: Sink;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sender-operational-"));
  operator = await sink((_req, res) => res.writeHead(200).end());
  customer = await sink((_req, res) => res.writeHead(500).end("down"));
  sender = await createSender({
    adminTokens: [ADMIN],
    store: join(dir, "sender.db"),
    allowNetworks: ["127.0.0.0/8"],
    // Every failure is retried at once and the endpoint is disabled as soon as it has failed for 200 ms.
    schedule: [0, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50],
    disableAfterMs: 200,
  });
  base = await sender.listen(0, "127.0.0.1");
}, 30_000);

afterAll(async () => {
  await sender?.close();
  await operator?.close();
  await customer?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("operational webhooks", () => {
  it("an auto-disabled subscription is reported to the operator's endpoint, signed and valid against its document", async () => {
    const types: string[] = operationalCatalog.map((entry) => entry.type);
    const refused = await api(base, "POST", "/subscriptions", { url: operator.url, application: "operator" });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("subscription.disabled");
    const subscribed = await api(base, "POST", "/subscriptions", {
      url: operator.url,
      application: "operator",
      eventTypes: types,
    });
    expect(subscribed.status).toBe(201);
    const target = await api(base, "POST", "/subscriptions", { url: customer.url });
    expect(
      (await api(base, "POST", "/events", JSON.stringify({ id: 1, name: "Fern" }))).body.deliveries,
    ).toBe(1);
    expect(
      (await api(base, "POST", "/events?application=operator", JSON.stringify({ id: 1, name: "x" }))).status,
    ).toBe(400);

    const arrived = await until(
      async () =>
        operator.requests.find((r) => r.headers["webhook-event-type"] === "subscription.disabled") ?? false,
      20_000,
    );
    const check = createVerifier([subscribed.body.secret]);
    const verdict = await check({
      id: arrived.headers["webhook-id"] as string,
      timestamp: arrived.headers["webhook-timestamp"] as string,
      signature: arrived.headers["webhook-signature"] as string,
      body: arrived.body,
    });
    expect(verdict).toMatchObject({ ok: true });
    expect(arrived.headers.authorization).toBe(`Bearer ${subscribed.body.token}`);
    const entry = operationalCatalog.find((e) => e.type === "subscription.disabled")!;
    const ajv = new ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(entry.schema as object);
    const event = JSON.parse(arrived.body);
    expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(event.data).toMatchObject({
      subscriptionId: target.body.id,
      reason: "failing",
      url: customer.url,
    });
    expect((await api(base, "GET", `/subscriptions/${target.body.id}`)).body.enabled).toBe(false);
    // The New Plant event never reached the operator's endpoint.
    expect(operator.requests.every((r) => types.includes(r.headers["webhook-event-type"] as string))).toBe(
      true,
    );
  }, 60_000);

  it("a deleted application is reported too", async () => {
    const app = await api(base, "POST", "/applications", { uid: "gone-soon", name: "Gone soon" });
    await api(base, "POST", "/subscriptions", { url: customer.url, application: app.body.id });
    expect((await api(base, "DELETE", `/applications/${app.body.id}`)).status).toBe(200);
    const arrived = await until(
      async () =>
        operator.requests.find((r) => r.headers["webhook-event-type"] === "application.deleted") ?? false,
      20_000,
    );
    expect(JSON.parse(arrived.body).data).toEqual({
      applicationId: app.body.id,
      uid: "gone-soon",
      name: "Gone soon",
      subscriptions: 1,
    });
  }, 60_000);
});
