import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createSecret, createToken } from "@plant-store/core";
import { createFetchHandler } from "@plant-store/core/fetch";
import { afterEach, describe, expect, it } from "vitest";
import { track } from "../../../test-support/processes.js";
import { checkReceiver, type Report, receiverChecks, toJUnit, toText } from "../src/index.js";
import { type Breakage, startReceiverUnderTest } from "./fixtures/receiver-under-test.js";

const token = createToken();
const secret = createSecret();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const failedMust = (report: Report) =>
  report.results
    .filter((r) => r.verdict === "fail" && r.level === "MUST")
    .map((r) => r.id)
    .sort();
const failed = (report: Report) => report.results.filter((r) => r.verdict === "fail").map((r) => r.id);

async function checkBroken(breakage?: Breakage, attemptTimeoutMs?: number) {
  const receiver = await startReceiverUnderTest({ token, secret, ...(breakage ? { breakage } : {}) });
  closers.push(receiver.close);
  return checkReceiver({
    url: receiver.url,
    token,
    secrets: [secret],
    oversizedBytes: 2 * 1024 * 1024,
    attemptTimeoutMs,
  });
}

describe("the receiver suite", () => {
  it("passes a receiver that follows the contract, MUST and SHOULD alike", async () => {
    const report = await checkBroken();
    expect(failed(report), toText(report)).toEqual([]);
    expect(report.results.filter((r) => r.verdict === "skip").map((r) => r.id)).toEqual([
      "signature.v1a",
      "signature.v1a-other-key",
      "timing.burst",
    ]);
  });

  it.each<[Breakage, string[], number | undefined]>([
    [
      "accepts-any-signature",
      ["signature.body-altered", "signature.other-secret", "signature.truncated", "signature.wrong"],
      undefined,
    ],
    ["ignores-timestamp", ["timestamp.future", "timestamp.stale"], undefined],
    ["refuses-big-ids", ["payload.int64"], undefined],
    ["500-on-duplicate", ["duplicate.same-id"], undefined],
    ["200-on-bad-bearer", ["bearer.wrong", "bearer.wrong-scheme"], undefined],
    ["slow", ["timing.in-time"], 1_000],
  ])(
    "catches a receiver that %s by exactly %j among the MUST checks",
    async (breakage, expected, attemptTimeoutMs) => {
      const report = await checkBroken(breakage, attemptTimeoutMs);
      expect(failedMust(report), toText(report)).toEqual(expected);
    },
  );

  it("passes our core pipeline as an in-process Fetch handler, v1a included, and a burst", async () => {
    const { createKeyPair } = await import("@plant-store/core");
    const { privateKey, publicKey } = await createKeyPair();
    const handler = createFetchHandler({
      tokens: [token],
      secrets: [secret],
      publicKeys: [publicKey],
      onEvent: async () => {},
    });
    const report = await checkReceiver({
      url: "http://in-process/plant/webhook",
      handler,
      token,
      secrets: [secret],
      privateKeys: [privateKey],
      publicKeys: [publicKey],
      include: ["load"],
      burst: 20,
    });
    expect(failed(report), toText(report)).toEqual([]);
    expect(report.results.filter((r) => r.verdict === "skip")).toEqual([]);
  });

  it("passes a receiver written with Python's standard library", async () => {
    const script = fileURLToPath(new URL("./fixtures/receiver.py", import.meta.url));
    const child = track(
      spawn("python3", [script, "0", token, secret], { stdio: ["ignore", "pipe", "inherit"] }),
    );
    closers.push(async () => {
      child.kill("SIGKILL");
    });
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk) => {
        out += chunk;
        const match = /listening (\d+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      child.once("exit", (code) => reject(new Error(`python exited with ${code}: ${out}`)));
    });
    const report = await checkReceiver({
      url: `http://127.0.0.1:${port}/plant/webhook`,
      token,
      secrets: [secret],
      oversizedBytes: 2 * 1024 * 1024,
    });
    expect(failed(report), toText(report)).toEqual([]);
  });

  it("selects checks with only and skip, refuses unknown ids, and writes JUnit", async () => {
    const receiver = await startReceiverUnderTest({ token, secret });
    closers.push(receiver.close);
    const report = await checkReceiver({
      url: receiver.url,
      token,
      secrets: [secret],
      only: ["bearer."],
      skip: ["bearer.wrong"],
    });
    const ran = report.results.filter((r) => r.verdict !== "skip").map((r) => r.id);
    expect(ran).toEqual([
      "bearer.missing",
      "bearer.wrong-error-code",
      "bearer.wrong-scheme",
      "bearer.lowercase-scheme",
    ]);
    expect(report.results).toHaveLength(receiverChecks.length);
    const junit = toJUnit(report);
    expect(junit).toContain(
      '<testcase classname="plant-store.conformance.receiver.MUST" name="bearer.missing:',
    );
    expect(junit).toContain("<skipped");
    expect(junit).not.toContain(token);
    expect(JSON.stringify(report)).not.toContain(token);
    await expect(checkReceiver({ url: receiver.url, only: ["bearer.nope"] })).rejects.toThrow(
      /Unknown check id "bearer.nope"/,
    );
  });
});
