import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKeyPair, createSecret, createToken } from "@plant-store/core";
import { afterAll, describe, expect, it } from "vitest";
import { background, budget, CLI, captureServer, cli, until } from "./support.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The `-H` flags that hand `verify` what `sign --json` printed. */
const asHeaders = (signed: Record<string, string>) =>
  Object.entries(signed).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);

describe("flags the help calls repeatable take several values", () => {
  it(
    "sign --secret twice signs with both; verify takes either, and both",
    async () => {
      const [a, b] = [createSecret(), createSecret()];
      const signed = await cli(["sign", "--secret", a, "--secret", b, "--example", "--json"]);
      expect(signed.code, signed.stderr).toBe(0);
      const headers = JSON.parse(signed.stdout) as Record<string, string>;
      const signatures = (headers["webhook-signature"] as string).split(" ");
      expect(signatures).toHaveLength(2);
      expect(signatures.every((signature) => signature.startsWith("v1,"))).toBe(true);
      for (const secrets of [[a], [b], [createSecret(), b]]) {
        const verified = await cli([
          "verify",
          ...secrets.flatMap((secret) => ["--secret", secret]),
          "--example",
          ...asHeaders(headers),
        ]);
        expect(verified.code, verified.stdout + verified.stderr).toBe(0);
        expect(verified.stdout).toMatch(/^valid signature/);
      }
      const neither = await cli(["verify", "--secret", createSecret(), "--example", ...asHeaders(headers)]);
      expect(neither.code).toBe(1);
    },
    budget(6),
  );

  it(
    "sign --private-key twice signs with both keys; verify --public-key twice takes the one that matches",
    async () => {
      const [first, second, stranger] = await Promise.all([
        createKeyPair(),
        createKeyPair(),
        createKeyPair(),
      ]);
      const signed = await cli([
        "sign",
        "--private-key",
        first.privateKey,
        "--private-key",
        second.privateKey,
        "--example",
        "--json",
      ]);
      expect(signed.code, signed.stderr).toBe(0);
      const headers = JSON.parse(signed.stdout) as Record<string, string>;
      const signatures = (headers["webhook-signature"] as string).split(" ");
      expect(signatures).toHaveLength(2);
      expect(signatures.every((signature) => signature.startsWith("v1a,"))).toBe(true);
      for (const keys of [
        [stranger.publicKey, second.publicKey],
        [first.publicKey, stranger.publicKey],
      ]) {
        const verified = await cli([
          "verify",
          ...keys.flatMap((key) => ["--public-key", key]),
          "--example",
          ...asHeaders(headers),
        ]);
        expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      }
      const neither = await cli([
        "verify",
        "--public-key",
        stranger.publicKey,
        "--public-key",
        (await createKeyPair()).publicKey,
        "--example",
        ...asHeaders(headers),
      ]);
      expect(neither.code).toBe(1);
      expect(neither.stdout).toMatch(/signature does not match/);
    },
    budget(4),
  );

  it(
    "replay --id twice replays both events, and only those",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "plant-store-replay-"));
      dirs.push(dir);
      const db = join(dir, "listen.db");
      const token = createToken();
      const secret = createSecret();
      const listener = await background(
        CLI,
        ["listen", "--port", "0", "--token", token, "--secret", secret, "--db", db, "--json"],
        (_out, err) => err.split("\n").find((line) => line.includes('"listening"')),
      );
      let kept: { webhookId: string; payload: { id: number } }[];
      try {
        const { listening } = JSON.parse(listener.info) as { listening: string };
        const sent = await cli([
          "send",
          listening,
          "--token",
          token,
          "--secret",
          secret,
          "--id",
          "1",
          "--count",
          "3",
        ]);
        expect(sent.code, sent.stderr).toBe(0);
        kept = await until(() => {
          const lines = listener.stdout().trim().split("\n").filter(Boolean);
          return lines.length === 3 && lines.map((line) => JSON.parse(line));
        }, 60_000);
      } finally {
        await listener.stop();
      }
      const idOf = (plant: number) => kept.find((event) => event.payload.id === plant)?.webhookId as string;
      const downstream = await captureServer();
      try {
        const replayed = await cli([
          "replay",
          "--db",
          db,
          "--forward-to",
          downstream.url,
          "--id",
          idOf(3),
          "--id",
          idOf(1),
          "--json",
        ]);
        expect(replayed.code, replayed.stderr).toBe(0);
        const lines = replayed.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
        // Oldest first, whatever the order of the flags.
        expect(lines).toEqual([
          { webhookId: idOf(1), status: 200, error: null },
          { webhookId: idOf(3), status: 200, error: null },
        ]);
        expect(downstream.requests.map((request) => request.headers["webhook-id"])).toEqual([
          idOf(1),
          idOf(3),
        ]);
        expect(downstream.requests.map((request) => JSON.parse(request.body.toString()).id)).toEqual([1, 3]);
      } finally {
        await downstream.close();
      }
    },
    budget(4),
  );
});
