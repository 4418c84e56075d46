import { CONSOLE_CSP } from "@plant-store/console";
import { createToken } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../../../test-support/raw-http.js";
import { createSender, type Sender } from "../src/index.js";

const ADMIN = createToken();
let sender: Sender;
let url: string;
beforeAll(async () => {
  sender = await createSender({ adminTokens: [ADMIN], store: ":memory:", worker: false });
  url = await sender.listen(0);
});
afterAll(() => sender.close());

describe("the sender serves the console at /console", () => {
  it("without a token, with the strict CSP; the page names its app", async () => {
    const page = await fetch(`${url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(await page.text()).toMatch(
      /<script type="module" crossorigin src="\/console\/assets\/[\w-]+\.js">/,
    );
    expect(await (await fetch(`${url}/console/app.json`)).json()).toEqual({ app: "sender" });
    const bare = await fetch(`${url}/console`, { redirect: "manual" });
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/console/");
  });

  it("lets no path through the console's exemption to the admin API", async () => {
    for (const path of [
      "/console/../subscriptions",
      "/console/%2e%2e/subscriptions",
      "/console/..%2Fsubscriptions",
    ]) {
      const res = await rawRequest(url, "GET", path, []);
      expect(res.status, path).not.toBe(200);
      expect(res.body, path).not.toContain('"data"');
    }
    expect((await fetch(`${url}/subscriptions`)).status).toBe(401);
  });

  it("refuses other methods with 405", async () => {
    const res = await fetch(`${url}/console/`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("GET");
  });
});
