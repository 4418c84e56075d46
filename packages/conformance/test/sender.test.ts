import { createSecret, createToken, signatureHeader } from "@plant-store/core";
import { afterEach, describe, expect, it } from "vitest";
import { createSenderJudge, type Report, toText } from "../src/index.js";

type SenderBreakage = "reuses-ids" | "signs-reserialized" | "ignores-retry-after" | "ignores-gone";

const token = createToken();
const secret = createSecret();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const failed = (report: Report) =>
  report.results
    .filter((r) => r.verdict === "fail")
    .map((r) => r.id)
    .sort();

/** A sender written by hand the way a team would, optionally broken one way. */
async function send(urls: string[], events: number, breakage?: SenderBreakage) {
  const gone = new Set<string>();
  for (let n = 1; n <= events; n++) {
    const body = JSON.stringify({ id: n, name: `Plant ${n}`, tag: "conformance" }, null, 2);
    const id = breakage === "reuses-ids" ? "msg_always_the_same" : `msg_${n}_${Date.now()}`;
    for (const url of urls.filter((u) => !gone.has(u))) {
      const outcome = await deliverWithRetries(url, id, body, breakage);
      if (outcome === "gone" && breakage !== "ignores-gone") gone.add(url);
    }
  }
}

async function deliverWithRetries(url: string, id: string, body: string, breakage?: SenderBreakage) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = breakage === "signs-reserialized" ? JSON.stringify(JSON.parse(body)) : body;
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signatureHeader({ secrets: [secret], id, timestamp, body: signed }),
      },
      body,
    });
    if (response.ok) return "delivered";
    if (response.status === 410) return "gone";
    const retryAfter = Number(response.headers.get("retry-after") ?? 0);
    const waitMs = breakage === "ignores-retry-after" || !retryAfter ? 50 : retryAfter * 1000;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  return "failed";
}

async function judged(breakage?: SenderBreakage) {
  const judge = createSenderJudge({ secrets: [secret], token, retryAfterSeconds: 1 });
  const server = await judge.listen({ port: 0 });
  closers.push(server.close);
  await send([`${server.url}/plant/webhook`, `${server.url}/gone`], 3, breakage);
  expect(await judge.waitFor(3, 20_000)).toBe(true);
  return judge.report(server.url);
}

describe("the sender suite", () => {
  it("passes a sender that follows Standard Webhooks", async () => {
    const report = await judged();
    expect(failed(report), toText(report)).toEqual([]);
    expect(report.results.filter((r) => r.verdict === "skip")).toEqual([]);
  });

  it.each<[SenderBreakage, string[]]>([
    ["reuses-ids", ["sender.ids-unique"]],
    ["signs-reserialized", ["sender.signature"]],
    ["ignores-retry-after", ["sender.retry-after"]],
    ["ignores-gone", ["sender.gone-stops"]],
  ])("catches a sender that %s by exactly %j", async (breakage, expected) => {
    const report = await judged(breakage);
    expect(failed(report), toText(report)).toEqual(expected);
  });

  it("refuses to judge without a secret or key", () => {
    expect(() => createSenderJudge({})).toThrow(/give the endpoint's secrets/);
  });
});
