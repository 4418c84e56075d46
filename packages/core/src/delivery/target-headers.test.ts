import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createSecret } from "../signing/index.js";
import { deliver } from "./deliver.js";
import { REFUSED_TARGET_HEADERS, targetHeadersProblem } from "./target-headers.js";

describe("a target's own headers", () => {
  it("refuses each header the delivery writes, in any case, naming it; accepts others", () => {
    for (const name of REFUSED_TARGET_HEADERS) {
      expect(targetHeadersProblem({ [name.toUpperCase()]: "x" })).toMatch(name);
    }
    expect(targetHeadersProblem({ "x-team": "plants", "X-Api-Key": "k1" })).toBeUndefined();
    // A destination (no token) sends its service's own credential; a subscription's token owns the header.
    expect(targetHeadersProblem({ Authorization: "Bearer svc" })).toBeUndefined();
    expect(targetHeadersProblem({ Authorization: "Bearer svc" }, { bearer: true })).toMatch(/bearer token/);
    expect(targetHeadersProblem({ "bad name": "x" })).toMatch(/not a valid header name/);
    expect(targetHeadersProblem({ "x-a": "a\r\nb" })).toMatch(/header-safe/);
    expect(targetHeadersProblem({ "x-a": "1", "X-A": "2" })).toMatch(/twice/);
    expect(targetHeadersProblem(["x"])).toMatch(/object/);
  });

  it("sends them without an Authorization when there is no token, and never lets them into an outcome", async () => {
    const got: Record<string, string | string[] | undefined>[] = [];
    const server = createServer((req, res) => {
      got.push(req.headers);
      req.resume();
      req.on("end", () => res.writeHead(500).end(`echo ${req.headers["x-api-key"]}`));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const outcome = await deliver(
        { url, token: null, secrets: [createSecret()], headers: { "X-Api-Key": "internal-key-1" } },
        { id: "msg_provider_1", body: '{"id":1}' },
      );
      expect(got[0]?.["x-api-key"]).toBe("internal-key-1");
      expect(got[0]?.authorization).toBeUndefined();
      expect(got[0]?.["webhook-id"]).toBe("msg_provider_1");
      expect(outcome.kind).toBe("retry");
      expect(JSON.stringify(outcome)).not.toContain("internal-key-1");
      const refused = await deliver(
        { url, token: null, secrets: [], headers: { "webhook-id": "other" } },
        { id: "msg_provider_2", body: "{}" },
      );
      expect(refused).toMatchObject({ kind: "failed", reason: "unusable_target" });
      expect(got).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
