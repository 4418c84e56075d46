import { CONSOLE_CSP } from "@plant-store/console";
import { createToken } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReceiver, type Receiver } from "../src/index.js";

let receiver: Receiver;
let url: string;
beforeAll(async () => {
  receiver = await createReceiver({ tokens: [createToken()], adminTokens: [createToken()] });
  url = await receiver.listen(0);
});
afterAll(() => receiver.close());

describe("the receiver serves the console at /console", () => {
  it("without a token, with the strict CSP; the page names its app", async () => {
    const page = await fetch(`${url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    const script = /src="(\/console\/assets\/[\w-]+\.js)"/.exec(await page.text())?.[1];
    const js = await fetch(`${url}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await (await fetch(`${url}/console/app.json`)).json()).toEqual({ app: "receiver" });
    const head = await fetch(`${url}/console/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("refuses writes and unknown files in the contract's error shape", async () => {
    const post = await fetch(`${url}/console/`, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(((await post.json()) as { message: string }).message).toContain("GET");
    const missing = await fetch(`${url}/console/nope.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: number }).error).toBe(404);
    expect((await fetch(`${url}/events`)).status).toBe(401);
  });
});
