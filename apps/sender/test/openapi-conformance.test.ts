import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender } from "../src/index.js";
import { ADMIN, cleanup, type Running, SENDER_BIN, start, stop } from "./support.js";

// The committed file, as a client reads it — not the object the sender builds it from.
const doc = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
};
interface Operation {
  operationId: string;
  security?: unknown[];
  requestBody?: unknown;
  parameters?: { in: string }[];
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
const METHODS = ["get", "post", "patch", "put", "delete"] as const;
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);

let sender: Running;
beforeAll(async () => {
  sender = await start(SENDER_BIN, [
    "--admin-token",
    ADMIN,
    "--db",
    ":memory:",
    "--allow-networks",
    "127.0.0.0/8",
    "--schedule",
    "3600000",
  ]);
});
afterAll(async () => {
  expect(await stop(sender)).toBe(0);
  cleanup();
});

/** Fastify's own route table, read from `printRoutes` (one line per path segment, methods in parentheses). */
function servedRoutes(tree: string): Set<string> {
  const served = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split("\n")) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = (match[1] as string).length / 4;
    stack.length = depth;
    stack.push(match[2] as string);
    const path = stack.join("").replace(/:([^/]+)/g, "{$1}");
    for (const method of (match[3] as string).split(", "))
      if (method !== "HEAD") served.add(`${method} ${path}`);
  }
  return served;
}

describe("apps/sender/openapi.json against the running sender", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("lists exactly the routes and methods Fastify serves", async () => {
    const own = await createSender({ adminTokens: [ADMIN], worker: false });
    try {
      // The console's static pages (/console, /console/*) are served beside the API, not part of it.
      const served = new Set(
        [...servedRoutes(own.admin.printRoutes({ commonPrefix: false }))].filter(
          (route) => !route.startsWith("GET /console"),
        ),
      );
      expect(served.size).toBeGreaterThan(10);
      expect([...served].sort()).toEqual(operations.map((o) => `${o.method} ${o.path}`).sort());
    } finally {
      await own.close();
    }
  });

  it("answers every method a documented path does not list with 405 and an Allow of exactly the listed ones", async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const url = `${sender.url}${path.replace(/\{[^}]+\}/g, "1")}`;
      const listed = Object.keys(item).map((m) => m.toUpperCase());
      const allow = [...listed, ...(listed.includes("GET") ? ["HEAD"] : [])].sort().join(", ");
      for (const method of METHODS.map((m) => m.toUpperCase()).filter((m) => !listed.includes(m))) {
        const res = await fetch(url, { method, headers: { authorization: `Bearer ${ADMIN}` } });
        await res.body?.cancel();
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      }
    }
  });

  it("every operation answers only statuses it documents, with bodies its schemas accept, and each documented answer is reachable", async () => {
    const ajv = new ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv); // CommonJS modules: their default export is module.exports
    ajv.addSchema({ $id: "admin", components: doc.components } as never);
    const auth = { authorization: `Bearer ${ADMIN}` };
    const json = { ...auth, "content-type": "application/json" };
    const call = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
      const res = await fetch(`${sender.url}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body }),
      });
      const text = await res.text();
      return { status: res.status, type: res.headers.get("content-type") ?? "", text };
    };
    // Real resources to address: a subscription, a published message, and a failed delivery (of another
    // subscription, disabled and enabled again) that can be resent.
    const subscribe = async () =>
      JSON.parse(
        (await call("POST", "/subscriptions", json, '{"url":"http://127.0.0.1:9/plant/webhook"}')).text,
      ).id as string;
    const sub = await subscribe();
    const other = await subscribe();
    const doomed = await subscribe(); // the delete probe's
    const published = await call("POST", "/events", json, '{"id":7,"name":"Fern"}');
    const msg = JSON.parse(published.text).messageId as string;
    await call("POST", `/subscriptions/${other}/disable`, json, "{}");
    await call("POST", `/subscriptions/${other}/enable`, auth);
    const failed = JSON.parse(
      (await call("GET", `/deliveries?subscriptionId=${other}&state=failed`, auth)).text,
    );
    expect(failed.data).toHaveLength(1);
    const delivery = String(failed.data[0].id);
    const application = async (uid: string) =>
      JSON.parse((await call("POST", "/applications", json, JSON.stringify({ uid, name: uid }))).text)
        .id as string;
    const app = await application("probe-app");
    const doomedApp = await application("doomed-app");
    // A portal token of another application: 403 on the operator's routes, 404 for the resources above.
    const portal = JSON.parse(
      (await call("POST", `/applications/${await application("portal-app")}/portal-link`, auth)).text,
    ).token as string;

    // Per operation: a request that succeeds (resources filled in), plus the generic ways to fail below.
    const good: Record<string, { path?: string; body?: string; headers?: Record<string, string> }> = {
      createApplication: { body: '{"uid":"made-here","name":"Made here"}' },
      listApplications: {},
      getApplication: {},
      updateApplication: { body: '{"name":"Renamed"}' },
      deleteApplication: { path: `/applications/${doomedApp}` },
      createPortalLink: { body: '{"expiresInSeconds":600}' },
      revokePortalLinks: {},
      getSession: {},
      createSubscription: { body: '{"url":"http://127.0.0.1:9/x"}' },
      listSubscriptions: { path: "/subscriptions?enabled=true" },
      getSubscription: {},
      deleteSubscription: { path: `/subscriptions/${doomed}` },
      updateSubscription: { body: '{"url":"http://127.0.0.1:9/y"}' },
      disableSubscription: { body: '{"reason":"probe"}' },
      enableSubscription: {},
      rotateCredential: { body: '{"kind":"secret","graceSeconds":60}' },
      recoverSubscription: { body: '{"since":"2020-01-01T00:00:00Z"}' },
      publishEvent: { body: '{"id":8,"name":"Ivy"}', headers: { "idempotency-key": "probe-1" } },
      publishEvents: { body: '{"events":[{"payload":{"id":9,"name":"Ivy"},"idempotencyKey":"probe-2"}]}' },
      listEventTypes: {},
      getMessage: {},
      listDeliveries: { path: "/deliveries?state=pending&limit=5" },
      getDelivery: {},
      listAttempts: {},
      resendDelivery: {},
      health: {},
      ready: {},
      openapi: {},
      metrics: {},
    };
    expect(Object.keys(good).sort()).toEqual(operations.map((o) => o.op.operationId).sort());

    const seen = new Map<string, Set<string>>();
    for (const { path, method, op } of operations) {
      const label = `${method} ${path}`;
      const fill = (id: string) => path.replace("{id}", id);
      const real = path.startsWith("/subscriptions/")
        ? sub
        : path.startsWith("/messages/")
          ? msg
          : path.startsWith("/applications/")
            ? app
            : delivery;
      const unknown = path.startsWith("/deliveries/") ? "999999999" : "sub_unknown";
      const probe = good[op.operationId] ?? {};
      const hasBody = method === "POST" || method === "PATCH";
      const requests: [string, Record<string, string>, string | undefined][] = [
        [
          probe.path ?? fill(real),
          { ...(hasBody ? json : auth), ...probe.headers },
          probe.body ?? (hasBody ? "{}" : undefined),
        ],
        [fill(real), {}, undefined],
        [fill(real), { authorization: "Bearer not a token" }, undefined],
        [
          fill(real),
          { authorization: `Bearer ${portal}`, ...(hasBody && { "content-type": "application/json" }) },
          probe.body ?? (hasBody ? "{}" : undefined),
        ],
      ];
      if (path.includes("{id}")) {
        requests.push([fill(unknown), hasBody ? json : auth, hasBody ? (probe.body ?? "{}") : undefined]);
        requests.push([fill("x".repeat(101)), auth, undefined]);
      }
      if (hasBody) {
        requests.push([fill(real), json, "[1]"]);
        requests.push([fill(real), json, "{"]);
        requests.push([fill(real), { ...auth, "content-type": "text/plain" }, "x"]);
        requests.push([fill(real), json, `"${"x".repeat(70_000)}"`]);
      }
      if (method === "GET" && path === "/deliveries") requests.push(["/deliveries?limit=0", auth, undefined]);
      for (const [url, headers, body] of requests) {
        const res = await call(method, url, headers, body);
        const documented = op.responses[String(res.status)];
        expect(
          documented,
          `${label} answered ${res.status} for ${url.slice(0, 40)}: ${res.text.slice(0, 120)}`,
        ).toBeDefined();
        const set = seen.get(label) ?? new Set<string>();
        set.add(String(res.status));
        seen.set(label, set);
        const schema = documented?.content?.["application/json"]?.schema;
        if (schema && res.type.startsWith("application/json")) {
          const validate = ajv.compile(
            JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"admin#/components')),
          );
          expect(
            validate(JSON.parse(res.text)),
            `${label} ${res.status}: ${JSON.stringify(validate.errors)}`,
          ).toBe(true);
        } else {
          expect(documented?.content?.["text/plain"], `${label} ${res.status} is ${res.type}`).toBeDefined();
        }
      }
    }
    // Each documented success and each route-particular error was produced above (the common 408/413/414/431/503
    // are produced by the edge tests in admin.test.ts).
    for (const { path, method, op } of operations) {
      const label = `${method} ${path}`;
      const particular = Object.keys(op.responses).filter(
        (s) => !["408", "413", "414", "431", "503", "409", "422"].includes(s),
      );
      expect([...(seen.get(label) ?? [])].sort(), label).toEqual(expect.arrayContaining(particular));
    }
  }, 120_000);
});
