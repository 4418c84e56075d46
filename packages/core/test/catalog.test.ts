import { fileURLToPath } from "node:url";
import type { Catalog } from "@plant-store/spec";
import { loadCatalog } from "@plant-store/spec/load";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFetchHandler } from "../src/adapters/fetch.js";
import { parseEvent } from "../src/events/index.js";
import type { WebhookHandlerOptions } from "../src/receive/handler.js";
import type { ReceivedEvent } from "../src/receive/index.js";
import { NOW_MS, SECRET, signedHeaders, TOKEN } from "./helpers.js";

// A document with two webhooks no code is written for: Plant Sold (int64, a nested object, an enum) and Inventory
// Changed (an enum, arrays, int32 items). Everything below comes from the document.
const FIXTURE = fileURLToPath(new URL("../../../test-support/fixtures/multi-webhook.yaml", import.meta.url));
let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadCatalog(FIXTURE);
});

const SOLD = '{"plantId":9007199254740993,"price":{"amount":1250,"currency":"EUR"},"note":"kept"}';
const INVENTORY = '{"status":"low","locations":["greenhouse-1"],"counts":[3]}';

let events: ReceivedEvent[];
beforeEach(() => {
  events = [];
});
function app(extra: Record<string, unknown> = {}) {
  return createFetchHandler({
    tokens: [TOKEN],
    secrets: [SECRET],
    now: () => NOW_MS,
    catalog,
    onEvent: (event: ReceivedEvent) => {
      events.push(event);
    },
    ...extra,
  } as WebhookHandlerOptions);
}
async function post(handler: (r: Request) => Promise<Response>, path: string, body: string, extra = {}) {
  const headers = { ...(await signedHeaders(body)), ...extra };
  const res = await handler(new Request(`http://receiver.test${path}`, { method: "POST", body, headers }));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as { error: number; message: string }) : null };
}

describe("a catalog read from a document serves every webhook of it", () => {
  it("reads each webhook's type, name, path, schema and examples", () => {
    expect(catalog.map((entry) => [entry.type, entry.name, entry.method, entry.path])).toEqual([
      ["newPlant", "New Plant", "POST", "/plant/webhook"],
      ["plantSold", "Plant Sold", "POST", "/plant/sold"],
      ["inventoryChanged", "Inventory Changed", "POST", "/inventory/changed"],
    ]);
    const sold = catalog[1]!;
    expect(JSON.stringify(sold.schema)).not.toContain("$ref");
    expect(sold.examples[0]?.name).toBe("basic");
  });

  it("routes by path: each event reaches onEvent with its type and int64 values exact", async () => {
    const handler = app();
    expect((await post(handler, "/plant/sold", SOLD)).status).toBe(200);
    expect((await post(handler, "/inventory/changed", INVENTORY)).status).toBe(200);
    expect((await post(handler, "/plant/webhook", '{"id":1,"name":"Fern"}')).status).toBe(200);
    expect(events.map((event) => event.type)).toEqual(["plantSold", "inventoryChanged", "newPlant"]);
    expect(events[0]?.payload).toEqual({
      plantId: 9007199254740993n,
      price: { amount: 1250n, currency: "EUR" },
      note: "kept",
    });
    expect(events[1]?.payload).toEqual({ status: "low", locations: ["greenhouse-1"], counts: [3] });
  });

  it("routes by the webhook-event-type header: one URL receives several event types", async () => {
    const handler = app();
    const res = await post(handler, "/plant/webhook", SOLD, { "webhook-event-type": "plantSold" });
    expect(res.status).toBe(200);
    expect(events[0]?.type).toBe("plantSold");
    expect(events[0]?.headers["webhook-event-type"]).toBe("plantSold");
  });

  it.each([
    [
      "/plant/sold",
      '{"plantId":1,"price":{"amount":1,"currency":"GBP"}}',
      "/price/currency",
      /one of "EUR", "USD"/,
    ],
    ["/plant/sold", '{"plantId":"1","price":{"amount":1,"currency":"EUR"}}', "/plantId", /without quotes/],
    ["/plant/sold", '{"plantId":1}', "/price", /price is missing/],
    ["/plant/sold", '{"plantId":1e400,"price":{"amount":1,"currency":"EUR"}}', "/plantId", /int64/],
    [
      "/inventory/changed",
      '{"status":"gone","locations":["a"]}',
      "/status",
      /one of "in_stock", "low", "sold_out"/,
    ],
    ["/inventory/changed", '{"status":"low","locations":[]}', "/locations", /at least 1 items/],
    ["/inventory/changed", '{"status":"low","locations":["a"],"counts":[2147483648]}', "/counts/0", /int32/],
    ["/inventory/changed", '{"status":"low","locations":[7]}', "/locations/0", /must be a string/],
  ])("%s refuses %s with 422 at %s", async (path, body, pointer, message) => {
    const res = await post(app(), path, body);
    expect(res.status).toBe(422);
    expect(res.body?.message).toContain(`At ${pointer}:`);
    expect(res.body?.message).toMatch(message);
    expect(events).toEqual([]);
  });

  it("422 for an event type this handler does not serve, naming the ones it does", async () => {
    const res = await post(app(), "/plant/webhook", SOLD, { "webhook-event-type": "plantEaten" });
    expect(res.status).toBe(422);
    expect(res.body?.message).toMatch(/does not accept "plantEaten".*newPlant, plantSold, inventoryChanged/);
  });

  it("serves only the chosen events: other paths 404, other types 422", async () => {
    const handler = app({ events: ["plantSold"] });
    expect((await post(handler, "/plant/sold", SOLD)).status).toBe(200);
    const other = await post(handler, "/plant/webhook", '{"id":1,"name":"x"}');
    expect(other.status).toBe(404);
    expect(other.body?.message).toContain("POST /plant/sold");
    const named = await post(handler, "/plant/sold", '{"id":1,"name":"x"}', {
      "webhook-event-type": "newPlant",
    });
    expect(named.status).toBe(422);
  });

  it("405 with Allow for another method on a webhook path", async () => {
    const res = await app()(new Request("http://receiver.test/inventory/changed", { method: "GET" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("refuses an unknown event in the events option when the handler is built", () => {
    expect(() => app({ events: ["plantEaten"] })).toThrow(/does not hold; it holds newPlant, plantSold/);
  });

  it("parseEvent in safe mode refuses a nested int64 beyond 2^53 at its pointer", () => {
    const result = parseEvent(
      catalog[1]!,
      '{"plantId":1,"price":{"amount":9007199254740993,"currency":"USD"}}',
      {
        mode: "safe",
      },
    );
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.issues).toEqual([
        { pointer: "/price/amount", message: expect.stringContaining("beyond 2^53-1") },
      ]);
  });
});
