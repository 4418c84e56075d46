import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AdminRoute, adminRoutes } from "@plant-store/admin-api";
import { openStore, type Store } from "@plant-store/store";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender, type Sender } from "../src/index.js";
import { ADMIN, api } from "./support.js";

// Applications and portal tokens, in process over a real socket, with the store's clock in the test's hands (a
// portal link lives at least a minute). Two customers, A and B, each with a subscription, messages, deliveries and
// attempts marked with their own text; every admin route is called with the operator's token, A's and B's portal
// tokens, and expired, revoked and forged ones.

let dir: string;
let store: Store;
let sender: Sender;
let base: string;
let shiftMs = 0;
const logLines: string[] = [];

interface Customer {
  app: string;
  uid: string;
  sub: string;
  /** A second subscription, deleted by its own portal in the matrix. */
  spare: string;
  onlyMessage: string;
  delivery: number;
  token: string;
  /** Every text that is this customer's alone: none may reach the other. */
  marks: string[];
}
const customers: Record<"a" | "b", Customer> = {} as never;
let sharedMessage = "";
let expiredToken = "";
let revokedToken = "";
const forgedToken = `pst_${randomBytes(32).toString("base64url")}`;

const as = (token: string) => ({ authorization: `Bearer ${token}` });
const call = (token: string, method: string, path: string, body?: unknown) =>
  api(base, method, path, body, as(token));

async function customer(key: "a" | "b"): Promise<Customer> {
  const uid = `cust-${key}-${randomBytes(3).toString("hex")}`;
  const app = (await api(base, "POST", "/applications", { uid, name: `Customer ${key.toUpperCase()}` })).body;
  const hook = `http://127.0.0.1:9/${key}-hook-${randomBytes(4).toString("hex")}`;
  const sub = await api(base, "POST", "/subscriptions", {
    url: hook,
    application: uid,
    uid: `main-${key}`,
    description: `desc-${uid}`,
    metadata: { owner: `meta-${uid}` },
  });
  expect(sub.status).toBe(201);
  const spare = await api(base, "POST", "/subscriptions", { url: `${hook}/spare`, application: app.id });
  const payload = `PAYLOAD-${uid}`;
  const only = await api(
    base,
    "POST",
    `/events?application=${uid}`,
    JSON.stringify({ id: 1, name: payload }),
    {
      "idempotency-key": "same-key",
    },
  );
  expect(only.body).toMatchObject({ deliveries: 2, duplicate: false });
  const deliveries = await store.outbox.listDeliveries({ messageId: only.body.messageId });
  const delivery = deliveries.items.find((d) => d.subscriptionId === sub.body.id)!.id;
  return {
    app: app.id,
    uid,
    sub: sub.body.id,
    spare: spare.body.id,
    onlyMessage: only.body.messageId,
    delivery,
    token: "",
    marks: [
      app.id,
      uid,
      sub.body.id,
      spare.body.id,
      hook,
      payload,
      only.body.messageId,
      `desc-${uid}`,
      `RESPONSE-${uid}`,
    ],
  };
}

/** Every delivery attempted once: a's and b's responses carry their marks. */
async function attemptEverything(): Promise<void> {
  const claimed = await store.outbox.claim(100, { leaseMs: 60_000, workerId: "test" });
  for (const d of claimed) {
    const owner = d.subscription.url.includes("/a-hook-")
      ? customers.a
      : d.subscription.url.includes("/b-hook-")
        ? customers.b
        : null;
    await store.outbox.record(d, {
      kind: "failed",
      status: 500,
      latencyMs: 3,
      responseBody: owner ? `RESPONSE-${owner.uid}` : "shared",
    });
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sender-applications-"));
  store = await openStore({ url: join(dir, "sender.db"), now: () => Date.now() + shiftMs });
  sender = await createSender({
    adminTokens: [ADMIN],
    store,
    worker: false,
    allowNetworks: ["127.0.0.0/8"],
    logger: pino({ level: "debug" }, { write: (line: string) => logLines.push(line) }),
  });
  base = await sender.listen(0, "127.0.0.1");
  customers.a = await customer("a");
  customers.b = await customer("b");
  const shared = await api(base, "POST", "/events", JSON.stringify({ id: 2, name: "SHARED" }), {
    "idempotency-key": "same-key",
  });
  expect(shared.body).toMatchObject({ deliveries: 4, duplicate: false });
  sharedMessage = shared.body.messageId;
  await attemptEverything();
  const link = (app: string, body?: unknown) => api(base, "POST", `/applications/${app}/portal-link`, body);
  revokedToken = (await link(customers.a.app)).body.token;
  expect((await api(base, "POST", `/applications/${customers.a.uid}/portal-link/revoke`)).status).toBe(200);
  expiredToken = (await link(customers.a.app, { expiresInSeconds: 60 })).body.token;
  const linkA = await link(customers.a.uid);
  expect(linkA.status).toBe(201);
  expect(linkA.body.url).toBe(`${base}/console/#token=${linkA.body.token}`);
  customers.a.token = linkA.body.token;
  customers.b.token = (await link(customers.b.app)).body.token;
  shiftMs = 61_000;
}, 60_000);

afterAll(async () => {
  await sender?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The path and body a route is called with, naming `target`'s resources. */
function requestOf(op: string, route: AdminRoute, target: Customer) {
  const ids: Record<string, string> = {
    application: target.app,
    subscription: target.sub,
    delivery: String(target.delivery),
    message: target.onlyMessage,
  };
  const resource = route.path.startsWith("/applications")
    ? ids.application
    : route.path.startsWith("/subscriptions")
      ? ids.subscription
      : route.path.startsWith("/deliveries")
        ? ids.delivery
        : ids.message;
  const path = route.path.replace("{id}", resource!);
  const bodies: Record<string, unknown> = {
    createApplication: { uid: `new-${randomBytes(3).toString("hex")}`, name: "New" },
    updateApplication: { name: "Renamed" },
    createSubscription: { url: "http://127.0.0.1:9/new", application: target.uid },
    updateSubscription: { description: "changed" },
    rotateCredential: { kind: "secret", graceSeconds: 60 },
    recoverSubscription: { since: "2020-01-01T00:00:00Z" },
    disableSubscription: { reason: "probe" },
    publishEvent: JSON.stringify({ id: 3, name: "probe" }),
    publishEvents: { events: [{ payload: { id: 4, name: "probe" } }] },
  };
  const query =
    op === "listSubscriptions"
      ? `?application=${target.uid}`
      : op === "listDeliveries"
        ? `?subscriptionId=${target.sub}`
        : "";
  return {
    path: path + query,
    body: route.method === "GET" || route.method === "DELETE" ? undefined : bodies[op],
  };
}

const DESTRUCTIVE = new Set(["deleteApplication", "revokePortalLinks", "deleteSubscription"]);

describe("a portal token", () => {
  it("reaches no other application's resource: every route answers 404 or 403, and no byte of it", async () => {
    const a = customers.a;
    const b = customers.b;
    for (const [op, r] of Object.entries(adminRoutes)) {
      const route = r as AdminRoute;
      const { path, body } = requestOf(op, route, b);
      const res = await call(a.token, route.method, path, body);
      const text = JSON.stringify(res.body);
      // An answer may name what the request itself carried ("No subscription sub_…"), nothing else of B's.
      const sent = path + JSON.stringify(body ?? "");
      for (const mark of b.marks.filter((m) => !sent.includes(m)))
        expect(text, `${op} leaked ${mark}`).not.toContain(mark);
      if (route.portal !== true) {
        expect(res.status, op).toBe(403);
        continue;
      }
      if (route.path.includes("{id}") || op === "listSubscriptions" || op === "createSubscription") {
        expect(res.status, `${op} ${path}`).toBe(404);
        expect(res.body.message, op).toMatch(/^No (subscription|delivery|message|application) /);
      } else expect(res.status, op).toBe(route.ok.status);
    }
    // Nothing of B's changed: the refused mutations did not run.
    const bSub = await api(base, "GET", `/subscriptions/${b.sub}`);
    expect(bSub.body).toMatchObject({ enabled: true, description: `desc-${b.uid}`, signingSecrets: 1 });
    expect((await api(base, "GET", `/applications/${b.app}`)).body.name).toBe("Customer B");
    expect((await call(b.token, "GET", "/session")).status).toBe(200);
  });

  it("sees and changes its own application's subscriptions, deliveries and attempts", async () => {
    const a = customers.a;
    const own = (method: string, path: string, body?: unknown) => call(a.token, method, path, body);
    expect((await own("GET", "/session")).body).toMatchObject({
      role: "portal",
      application: { id: a.app, uid: a.uid, name: "Customer A" },
    });
    const listed = await own("GET", "/subscriptions");
    expect(listed.body.data.map((s: { id: string }) => s.id).sort()).toEqual([a.sub, a.spare].sort());
    const deliveries = (await own("GET", "/deliveries")).body.data as { subscriptionId: string }[];
    expect(deliveries.length).toBe(4);
    expect(new Set(deliveries.map((d) => d.subscriptionId))).toEqual(new Set([a.sub, a.spare]));
    expect((await own("GET", `/deliveries/${a.delivery}/attempts`)).body.data[0].responseBody).toBe(
      `RESPONSE-${a.uid}`,
    );
    expect((await own("GET", `/messages/${a.onlyMessage}`)).body.payload.name).toBe(`PAYLOAD-${a.uid}`);
    expect((await own("GET", `/messages/${sharedMessage}`)).status).toBe(200);
    expect((await own("POST", `/deliveries/${a.delivery}/resend`)).body.state).toBe("pending");
    expect(
      (await own("POST", `/subscriptions/${a.sub}/rotate`, { kind: "secret", graceSeconds: 60 })).status,
    ).toBe(200);
    expect((await own("POST", `/subscriptions/${a.sub}/disable`, {})).body.enabled).toBe(false);
    expect((await own("POST", `/subscriptions/${a.sub}/enable`)).body.enabled).toBe(true);
    expect(
      (await own("POST", `/subscriptions/${a.sub}/recover`, { since: "2020-01-01T00:00:00Z" })).body.requeued,
    ).toBe(2); // the only message's and the shared one's: the disable failed the resent one again
    // A URL change goes through the SSRF guard, as the operator's does.
    const refused = await own("PATCH", `/subscriptions/${a.sub}`, { url: "http://10.1.2.3/hook" });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/refused/);
    expect(
      (await own("PATCH", `/subscriptions/${a.sub}`, { url: "http://127.0.0.1:9/a-moved" })).status,
    ).toBe(200);
    const created = await own("POST", "/subscriptions", { url: "http://127.0.0.1:9/a-new", uid: "second" });
    expect(created.status).toBe(201);
    expect(created.body.applicationId).toBe(a.app);
    expect((await own("DELETE", `/subscriptions/${a.spare}`)).status).toBe(200);
    expect((await own("POST", "/events", JSON.stringify({ id: 9, name: "x" }))).status).toBe(403);
  });

  it("expired, revoked or forged: refused everywhere (401), and 403 on the public routes", async () => {
    for (const token of [expiredToken, revokedToken, forgedToken]) {
      for (const [op, r] of Object.entries(adminRoutes)) {
        const route = r as AdminRoute;
        if (DESTRUCTIVE.has(op)) continue;
        const { path, body } = requestOf(op, route, customers.a);
        const res = await call(token, route.method, path, body);
        expect(res.status, op).toBe(route.auth === false ? 403 : 401);
        if (route.auth !== false)
          expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
        for (const mark of [...customers.a.marks, ...customers.b.marks])
          expect(JSON.stringify(res.body), op).not.toContain(mark);
      }
    }
  });

  it("is never written to the log", () => {
    const log = logLines.join("\n");
    for (const token of [customers.a.token, customers.b.token, expiredToken, revokedToken, forgedToken])
      expect(log).not.toContain(token.slice(4));
  });
});

describe("the operator", () => {
  it("reaches every route, and deleting an application deletes its subscriptions and stops their deliveries", async () => {
    for (const [op, r] of Object.entries(adminRoutes)) {
      const route = r as AdminRoute;
      if (DESTRUCTIVE.has(op)) continue;
      const { path, body } = requestOf(op, route, customers.b);
      const res = await api(base, route.method, path, body);
      expect([route.ok.status, 409], `${op} ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
    }
    const b = customers.b;
    const owned = (await api(base, "GET", `/subscriptions?application=${b.uid}`)).body.data.length;
    expect(owned).toBe(3); // its two, and the one the operator's createSubscription just made
    const late = JSON.stringify({ id: 5, name: "late" });
    const pending = await api(base, "POST", `/events?application=${b.uid}`, late);
    expect(pending.body.deliveries).toBe(owned);
    const deleted = await api(base, "DELETE", `/applications/${b.uid}`);
    expect(deleted.body).toEqual({ id: b.app, deleted: true, subscriptions: owned });
    expect((await store.outbox.listDeliveries({ messageId: pending.body.messageId })).items).toEqual([]);
    expect((await api(base, "GET", `/subscriptions/${b.sub}`)).status).toBe(404);
    expect((await api(base, "GET", `/deliveries?subscriptionId=${b.sub}`)).body.data).toEqual([]);
    expect((await call(b.token, "GET", "/session")).status).toBe(401);
    expect((await store.applications.listDeletions()).map((d) => d.uid)).toEqual([b.uid]);
    expect(logLines.some((line) => line.includes('"application deleted"') && line.includes(b.app))).toBe(
      true,
    );
    expect((await api(base, "DELETE", "/applications/default")).status).toBe(409);
    expect(
      (await api(base, "POST", "/events?application=nobody", JSON.stringify({ id: 1, name: "x" }))).status,
    ).toBe(404);
  });
});
