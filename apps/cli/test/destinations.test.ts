import { createSecret, createToken } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Running } from "../../../test-support/processes.js";
import { background, budget, cli, listeningUrl, RECEIVER_BIN } from "./support.js";

const admin = createToken();
let receiver: Running;
let env: Record<string, string>;

beforeAll(async () => {
  const args = ["--port", "0", "--token", createToken(), "--secret", createSecret(), "--admin-token", admin];
  receiver = await background(RECEIVER_BIN, [...args, "--db", ":memory:"], (out) => listeningUrl(out));
  env = { PLANT_STORE_RECEIVER_URL: receiver.info, PLANT_STORE_ADMIN_TOKEN: admin };
}, 30_000);
afterAll(async () => {
  await receiver?.stop();
});

const dst = (args: string[]) => cli(["destinations", ...args], { env });

describe("plant-store destinations against a real receiver", () => {
  it(
    "creates with repeatable flags, lists, pauses, resumes, rotates, reads the secret, replays and deletes",
    async () => {
      const created = await dst([
        "create",
        "orders",
        "http://orders.internal/hooks",
        "--event-type",
        "newPlant",
        "--header",
        "x-api-key:k1",
        "--header",
        "x-team: plants",
        "--ordered",
        "--rate-limit",
        "20",
        "--signing",
        "symmetric",
        "--json",
      ]);
      expect(created.stderr).toBe("");
      expect(created.code).toBe(0);
      const dest = JSON.parse(created.stdout) as Record<string, unknown>;
      expect(dest).toMatchObject({
        name: "orders",
        eventTypes: ["newPlant"],
        headerNames: ["x-api-key", "x-team"],
        ordered: true,
        rateLimit: 20,
        signing: "symmetric",
        state: "active",
      });
      const id = String(dest.id);
      const listed = await dst(["list"]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`${id}\\s+active\\s+depth 0\\s+lag 0s\\s+failed 0\\s+orders`));
      expect((await dst(["pause", id, "--json"])).stdout).toContain('"state":"paused"');
      expect((await dst(["resume", id])).stdout).toContain("state: active");
      const secret = await dst(["secret", id]);
      expect(secret.stdout.trim()).toBe(dest.secret);
      const rotated = await dst(["rotate-secret", id, "--grace", "60", "--json"]);
      const next = (JSON.parse(rotated.stdout) as { secret: string }).secret;
      expect(next).toMatch(/^whsec_/);
      expect(next).not.toBe(dest.secret);
      expect((await dst(["secret", id])).stdout.trim()).toBe(next);
      expect((await dst(["replay", id, "--failed"])).stdout).toContain("requeued: 0");
      expect((await dst(["forwards", id])).stdout).toContain("(none)");
      expect((await dst(["delete", id])).stdout).toContain("deleted: true");
      expect((await dst(["get", id])).code).toBe(1);
    },
    budget(12),
  );

  it(
    "refuses bad input: the receiver's reason (exit 1), a flag the schema refuses or a missing URL (exit 2)",
    async () => {
      const creds = await dst(["create", "x", "http://user:pw@svc.internal/"]);
      expect(creds.code).toBe(1);
      expect(creds.stderr).toMatch(/the receiver answered 400: .*credential/i);
      const types = await dst(["create", "y", "http://svc.internal/", "--event-type", "nope"]);
      expect(types.code).toBe(1);
      expect(types.stderr).toContain("newPlant");
      const replay = await dst(["replay", "dst_x", "--since", "yesterday"]);
      expect(replay.code).toBe(2);
      expect(replay.stderr).toContain("--since");
      const v1a = await dst(["create", "k", "http://svc.internal/", "--signing", "asymmetric"]);
      expect(v1a.code).toBe(1);
      expect(v1a.stderr).toMatch(/the receiver answered 400: .*--forward-private-key/);
      const scheme = await dst(["create", "k", "http://svc.internal/", "--signing", "v2"]);
      expect(scheme.code).toBe(2);
      expect(scheme.stderr).toContain("signing");
      const header = await dst(["create", "z", "http://svc.internal/", "--header", "novalue"]);
      expect(header.code).toBe(2);
      const missing = await cli(["destinations", "list"], { env: { PLANT_STORE_ADMIN_TOKEN: admin } });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("--receiver-url");
    },
    budget(5),
  );
});
