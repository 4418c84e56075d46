// Publishing cost with applications: CPU time per delivery of publishes through the store's own publish, on a
// SQLite file, in one process (nothing else runs in it), each shape in a fresh file:
//   today:        one subscription (the default application), every publish to all      → 1 delivery per publish
//   today-named:  as today, each publish naming the default application by uid          → 1 delivery per publish
//   apps-one:     100 applications of 1 subscription each, each publish to one of them → 1 delivery per publish
//   today-100:    100 subscriptions in the default application, publish to all          → 100 deliveries per publish
//   apps-all:     100 applications of 1 subscription each, publish to all               → 100 deliveries per publish
// Each shape is measured in rounds, alternating, after a warm-up; the figure is the median round's CPU time
// (user + system) per delivery.
//   node bench/applications.mjs [publishes per round] [rounds]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@plant-store/store";
import { body } from "./fill.mjs";

const PER_ROUND = Number(process.argv[2] ?? 4000);
const ROUNDS = Number(process.argv[3] ?? 5);
const SLICE = 64;
const TOKEN = "psk_r6EjavgJoaGI1SDkjAwMrRgfBgpxoI1WDX8o";

async function open(dir, name) {
  return openStore({ url: join(dir, `${name}.db`), logger: { warn() {} } });
}

/** A store shaped as `shape`, and how each publish of it names its application. */
async function shaped(dir, shape) {
  const store = await open(dir, shape);
  const uids = [];
  const single = shape === "today" || shape === "today-named";
  if (single) await store.subscriptions.create({ url: "http://127.0.0.1:9/h", token: TOKEN });
  for (let i = 0; !single && i < 100; i++) {
    if (shape === "today-100") {
      await store.subscriptions.create({ url: `http://127.0.0.1:9/h${i}`, token: TOKEN });
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
        : () => ({});
  return { store, application };
}

/** Publishes `n` events in slices (one group commit each); returns the deliveries made. */
async function publish(target, n, offset) {
  let deliveries = 0;
  for (let i = 0; i < n; i += SLICE) {
    const slice = [];
    for (let j = i; j < Math.min(n, i + SLICE); j++)
      slice.push(target.store.outbox.publish(body(offset + j), target.application(offset + j)));
    for (const r of await Promise.all(slice)) deliveries += r.deliveries;
  }
  return deliveries;
}

const dir = mkdtempSync(join(tmpdir(), "plant-store-bench-apps-"));
const shapes = ["today", "today-named", "apps-one", "today-100", "apps-all"];
try {
  const targets = {};
  for (const shape of shapes) {
    targets[shape] = await shaped(dir, shape);
    await publish(targets[shape], shape.endsWith("100") || shape === "apps-all" ? 200 : 2000, 0); // warm-up
  }
  const perDelivery = Object.fromEntries(shapes.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const shape of shapes) {
      const n = shape === "today-100" || shape === "apps-all" ? Math.max(SLICE, PER_ROUND / 100) : PER_ROUND;
      const before = process.cpuUsage();
      const deliveries = await publish(targets[shape], n, (round + 1) * 1_000_000);
      const used = process.cpuUsage(before);
      perDelivery[shape].push((used.user + used.system) / deliveries);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = Object.fromEntries(shapes.map((s) => [s, Number(median(perDelivery[s]).toFixed(2))]));
  console.log(
    JSON.stringify({ node: process.version, perRound: PER_ROUND, rounds: ROUNDS, usPerDelivery: result }),
  );
  for (const target of Object.values(targets)) await target.store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
