// The shapes of the applications bench (applications.mjs times them, applications-counted.mjs counts them):
//   today:        one subscription (the default application), every publish to all      → 1 delivery per publish
//   today-named:  as today, each publish naming the default application by uid          → 1 delivery per publish
//   apps-one:     100 applications of 1 subscription each, each publish to one of them → 1 delivery per publish
//   today-routed: 100 subscriptions in the default application, each taking its own event type, each publish of one
//                 of those types (how today's store sends an event to one of 100 endpoints) → 1 delivery per publish
//   today-100:    100 subscriptions in the default application, publish to all          → 100 deliveries per publish
//   apps-all:     100 applications of 1 subscription each, publish to all               → 100 deliveries per publish
import { buildCatalog } from "@plant-store/spec";
import { body } from "./fill.mjs";

export const SHAPES = ["today", "today-named", "apps-one", "today-routed", "today-100", "apps-all"];

/** 100 event types `t0` … `t99`, each a webhook taking New Plant's body (the `today-routed` shape's catalog). */
const ROUTED = buildCatalog({
  openapi: "3.1.0",
  webhooks: Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [
      `/t${i}`,
      {
        post: {
          operationId: `t${i}`,
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["id", "name"],
                  properties: { id: { type: "integer", format: "int64" }, name: { type: "string" } },
                },
              },
            },
          },
          responses: { 200: { description: "Received." } },
        },
      },
    ]),
  ),
});
/** Events per group commit: the publishes of one slice are submitted in the same turn. */
export const SLICE = 64;
const TOKEN = "psk_r6EjavgJoaGI1SDkjAwMrRgfBgpxoI1WDX8o";

/** Whether each publish of `shape` makes 100 deliveries. */
export const isWide = (shape) => shape === "today-100" || shape === "apps-all";

/** `store` (new, empty) shaped as `shape`, and how each publish of it names its application. */
export async function shaped(store, shape) {
  const uids = [];
  const single = shape === "today" || shape === "today-named";
  if (single) await store.subscriptions.create({ url: "http://127.0.0.1:9/h", token: TOKEN });
  for (let i = 0; !single && i < 100; i++) {
    if (shape === "today-100" || shape === "today-routed") {
      await store.subscriptions.create({
        url: `http://127.0.0.1:9/h${i}`,
        token: TOKEN,
        ...(shape === "today-routed" && { eventTypes: [`t${i}`] }),
      });
      continue;
    }
    const app = await store.applications.create({ uid: `cust-${i}`, name: `Customer ${i}` });
    await store.subscriptions.create({
      applicationId: app.id,
      url: `http://127.0.0.1:9/h${i}`,
      token: TOKEN,
    });
    uids.push(app.uid);
  }
  const application =
    shape === "apps-one"
      ? (i) => ({ application: uids[i % uids.length] })
      : shape === "today-named"
        ? () => ({ application: "default" })
        : shape === "today-routed"
          ? (i) => ({ eventType: `t${i % 100}`, catalog: ROUTED })
          : () => ({});
  return { store, application };
}

/** Publishes `n` events in slices (one group commit each); returns the deliveries made. */
export async function publish(target, n, offset) {
  let deliveries = 0;
  for (let i = 0; i < n; i += SLICE) {
    const slice = [];
    for (let j = i; j < Math.min(n, i + SLICE); j++)
      slice.push(target.store.outbox.publish(body(offset + j), target.application(offset + j)));
    for (const r of await Promise.all(slice)) deliveries += r.deliveries;
  }
  return deliveries;
}
