import { createToken } from "@plant-store/core";
import { openStore } from "@plant-store/store";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createSender, type Sender } from "../src/index.js";
import { ADMIN, until } from "./support.js";

let sender: Sender | undefined;
afterEach(async () => {
  await sender?.close();
  sender = undefined;
});

describe("worker outcomes", () => {
  it("counts and logs an attempt the SSRF guard refused as blocked, failing it at once", async () => {
    // Subscriptions made through the store directly are not checked at creation: the worker's guard refuses this one
    // at every attempt (no --allow-networks), whatever a rebinding name or an old row holds.
    const store = await openStore({ url: ":memory:", logger: { warn() {} } });
    const lines: string[] = [];
    sender = await createSender({
      adminTokens: [ADMIN],
      store,
      logger: pino({ level: "info" }, { write: (line: string) => lines.push(line) }),
    });
    const sub = await store.subscriptions.create({
      url: "http://10.0.0.1:9/plant/webhook",
      token: createToken(),
    });
    await store.outbox.publish({ id: 1, name: "Fern" });
    const [delivery] = await until(async () => {
      const { items } = await store.outbox.listDeliveries({ subscriptionId: sub.id, state: "failed" });
      return items.length > 0 && items;
    });
    expect(delivery).toMatchObject({ attempts: 1, lastStatus: null });
    expect(delivery!.lastError).toMatch(/10\.0\.0\.1 is a private address/);
    const metrics = await sender.metrics.registry.metrics();
    expect(metrics).toMatch(/plant_store_sender_attempts_total\{outcome="blocked"\} 1/);
    expect(metrics).not.toMatch(/plant_store_sender_attempts_total\{outcome="failed"\}/);
    const attempt = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "attempt");
    expect(attempt).toMatchObject({ deliveryId: delivery!.id, outcome: "blocked", status: null });
    await sender.close();
    sender = undefined;
    await store.close();
  });
});
