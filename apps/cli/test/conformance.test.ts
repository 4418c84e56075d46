import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Report } from "@plant-store/conformance";
import { createKeyPair, createSecret, createToken } from "@plant-store/core";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, type Running } from "../../../test-support/processes.js";
import { background, budget, CLI, cli, listeningUrl, RECEIVER_BIN, SENDER_BIN } from "./support.js";

const running: Running[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((process) => process.stop("SIGKILL")));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const failures = (report: Report) =>
  report.results.filter((r) => r.verdict === "fail").map((r) => `${r.id}: ${r.detail}`);

describe("plant-store conformance", () => {
  it(
    "receiver: our receiver passes every MUST and SHOULD check, v1a and the burst included; JSON and JUnit reports",
    async () => {
      const token = createToken();
      const secret = createSecret();
      const { privateKey, publicKey } = await createKeyPair();
      const dir = mkdtempSync(join(tmpdir(), "conformance-"));
      dirs.push(dir);
      const receiver = await background(
        RECEIVER_BIN,
        [
          "--port",
          "0",
          "--token",
          token,
          "--secret",
          secret,
          "--public-key",
          publicKey,
          "--db",
          join(dir, "r.db"),
        ],
        (out) => listeningUrl(out),
      );
      running.push(receiver);
      const junit = join(dir, "report.xml");
      const args = [
        "conformance",
        "receiver",
        `${receiver.info}/plant/webhook`,
        "--token",
        token,
        "--secret",
        secret,
      ];
      const result = await cli([
        ...args,
        "--private-key",
        privateKey,
        "--public-key",
        publicKey,
        "--include",
        "load",
        "--json",
        "--junit",
        junit,
      ]);
      const report = JSON.parse(result.stdout) as Report;
      expect(failures(report), result.stderr).toEqual([]);
      expect(report.results.filter((r) => r.verdict === "skip")).toEqual([]);
      expect(result.code).toBe(0);
      expect(readFileSync(junit, "utf8")).toContain('<testsuite name="receiver: ');
      expect(result.stdout).not.toContain(token);
      expect(result.stdout).not.toContain(secret);

      const text = await cli([...args, "--only", "bearer.,payload.examples"]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^PASS {2}MUST {3}bearer\.missing/m);
      expect(text.stdout).toMatch(/^SKIP {2}MUST {3}signature\.wrong +not selected \(--only\)/m);
    },
    budget(3) + 120_000,
  );

  it(
    "receiver: a MUST failure exits 1 and names the check; usage errors exit 2",
    async () => {
      const token = createToken();
      const receiver = await background(
        RECEIVER_BIN,
        ["--port", "0", "--token", token, "--db", ":memory:"],
        (out) => listeningUrl(out),
      );
      running.push(receiver);
      // The receiver has no secret: a delivery signed with one it cannot know is still taken, which the suite reports.
      const result = await cli([
        "conformance",
        "receiver",
        `${receiver.info}/plant/webhook`,
        "--token",
        token,
        "--secret",
        createSecret(),
        "--only",
        "signature.wrong",
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^FAIL {2}MUST {3}signature\.wrong/m);
      expect(result.stdout).toContain("docs/conformance/signature.wrong.md");
      const unknown = await cli([
        "conformance",
        "receiver",
        `${receiver.info}/plant/webhook`,
        "--only",
        "nope",
      ]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/Unknown check id "nope"/);
      const noUrl = await cli(["conformance", "receiver", "ftp://x"]);
      expect(noUrl.code).toBe(2);
    },
    budget(3) + 30_000,
  );

  it(
    "sender: our sender passes the sender suite (signatures, ids, a retry after 500, Retry-After, 410)",
    async () => {
      const token = createToken();
      const secret = createSecret();
      const admin = createToken();
      const port = await freePort();
      const judge = await background(
        CLI,
        [
          "conformance",
          "sender",
          "--port",
          String(port),
          "--secret",
          secret,
          "--token",
          token,
          "--events",
          "3",
          "--retry-after",
          "1",
          "--wait",
          "120",
          "--json",
        ],
        (_out, err) => (err.includes("Judging deliveries at") ? "ready" : undefined),
      );
      running.push(judge);
      const sender = await background(
        SENDER_BIN,
        [
          "--port",
          "0",
          "--admin-token",
          admin,
          "--db",
          ":memory:",
          "--allow-networks",
          "127.0.0.0/8",
          "--schedule",
          "0,200,200,200,200",
        ],
        (out) => listeningUrl(out),
      );
      running.push(sender);
      const env = { PLANT_STORE_SENDER_URL: sender.info, PLANT_STORE_ADMIN_TOKEN: admin };
      for (const path of ["/plant/webhook", "/gone"]) {
        const added = await cli(
          ["subscriptions", "add", `http://127.0.0.1:${port}${path}`, "--token", token, "--secret", secret],
          { env },
        );
        expect(added.code, added.stderr).toBe(0);
      }
      for (const name of ["Fern", "Monstera", "Pothos"]) {
        const published = await cli(["publish", "--name", name], { env });
        expect(published.code, published.stderr).toBe(0);
      }
      const code = await judge.exited;
      const report = JSON.parse(judge.stdout()) as Report;
      expect(failures(report), judge.stderr()).toEqual([]);
      expect(report.results.filter((r) => r.verdict === "skip")).toEqual([]);
      expect(code).toBe(0);
    },
    budget(6) + 120_000,
  );
});
