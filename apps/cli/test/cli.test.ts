import { createPublicKey, generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecret, createToken, verify } from "@plant-store/core";
import { afterAll, describe, expect, it } from "vitest";
import { background, budget, cli, listeningUrl, RECEIVER_BIN, SENDER_BIN, until } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "plant-store-cli-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("plant-store basics", () => {
  it(
    "--version, --help, usage errors exit 2",
    async () => {
      expect(await cli(["--version"])).toMatchObject({ code: 0, stdout: "0.1.0\n" });
      const help = await cli(["--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/Usage: plant-store/);
      for (const command of [
        "send",
        "listen",
        "validate",
        "example",
        "spec",
        "token",
        "secret",
        "keypair",
        "events",
        "replay",
        "sign",
        "verify",
        "subscriptions",
        "publish",
        "deliveries",
        "recover",
        "destinations",
      ]) {
        expect((await cli([command, "--help"])).stdout, command).toMatch(/^Examples?\b/m);
      }
      const unknown = await cli(["frobnicate"]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/unknown command/);
      expect((await cli(["send"])).code).toBe(2); // missing <url>
      expect((await cli(["send", "http://127.0.0.1:9/plant/webhook"])).stderr).toMatch(/--token/);
      expect((await cli(["send", "nope", "--token", "x"])).code).toBe(2);
      expect((await cli(["send", "http://x/", "--token", "x", "--count", "0"])).code).toBe(2);
    },
    budget(23),
  );

  it("example, spec, token and secret", async () => {
    const example = await cli(["example", "--json"]);
    expect(JSON.parse(example.stdout)).toEqual({ id: 1, name: "Monstera deliciosa", tag: "tropical" });
    expect((await cli(["spec"])).stdout).toMatch(/^openapi: 3\.1\.0/m);
    expect(JSON.parse((await cli(["spec", "--json"])).stdout).info.title).toBe("OpenAPI Plant Store");
    const token = JSON.parse((await cli(["token", "create", "--json"])).stdout) as {
      token: string;
      hash: string;
    };
    expect(token.token).toMatch(/^psk_/);
    expect(JSON.parse((await cli(["token", "hash", token.token, "--json"])).stdout).hash).toBe(token.hash);
    expect((await cli(["token", "check", token.token])).code).toBe(0);
    // Change the last character (to one it is not: a token ending in "x" would otherwise stay intact).
    const last = token.token.endsWith("x") ? "y" : "x";
    const damaged = await cli(["token", "check", `${token.token.slice(0, -1)}${last}`, "--json"]);
    expect(damaged.code).toBe(1);
    expect(JSON.parse(damaged.stdout)).toMatchObject({ valid: false });
    expect((await cli(["secret", "create"])).stdout).toMatch(/^whsec_[A-Za-z0-9+/]+=*\n$/);
  });

  it("validate: one document or NDJSON, each error with its pointer and line, exit 1 when any is invalid", async () => {
    const ok = await cli(["validate", "-"], { input: '{\n  "id": 1,\n  "name": "Fern"\n}\n' });
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.stdout).toMatch(/1 valid, 0 invalid/);
    const file = join(dir, "plants.ndjson");
    writeFileSync(file, '{"id":1,"name":"a"}\n{"id":"2","name":"b"}\n\n{"id":9007199254740993,"name":"c"}\n');
    const mixed = await cli(["validate", file, "--json"]);
    expect(mixed.code).toBe(1);
    const results = mixed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // Every int64 id is valid (the contract's range); --safe also asks for what a JavaScript number holds exactly.
    expect(results.map((r: { line: number; valid: boolean }) => [r.line, r.valid])).toEqual([
      [1, true],
      [2, false],
      [4, true],
    ]);
    expect(results[1].issues[0].pointer).toBe("/id");
    const safe = await cli(["validate", file, "--safe"]);
    expect(safe.stdout).toMatch(/1 valid, 2 invalid/);
    expect(safe.stdout).toMatch(/line 4 \/id: .*2\^53/);
    expect((await cli(["validate", file, "--lossless"])).stdout).toMatch(/2 valid, 1 invalid/); // still accepted
    expect((await cli(["validate", join(dir, "missing.json")])).code).toBe(2);
  });

  it("sign → verify round trip, and verify says why it fails", async () => {
    const secret = createSecret();
    const body = '{"id":1,"name":"Fern"}';
    const signed = JSON.parse(
      (await cli(["sign", "--secret", secret, "--data", body, "--json"])).stdout,
    ) as Record<string, string>;
    const headerArgs = Object.entries(signed).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
    expect((await cli(["verify", "--secret", secret, ...headerArgs, "--data", body])).code).toBe(0);
    const changed = await cli([
      "verify",
      "--secret",
      secret,
      ...headerArgs,
      "--data",
      '{"id":2,"name":"Fern"}',
    ]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/wrong secret or key, or the body changed/);
    const stale = JSON.parse(
      (await cli(["sign", "--secret", secret, "--data", body, "--timestamp", "1000000000", "--json"])).stdout,
    ) as Record<string, string>;
    const staleArgs = Object.entries(stale).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
    const old = await cli(["verify", "--secret", secret, ...staleArgs, "--data", body, "--json"]);
    expect(JSON.parse(old.stdout)).toMatchObject({ valid: false, code: "timestamp_too_old" });
    const malformed = await cli([
      "verify",
      "--secret",
      secret,
      "-H",
      "webhook-id: a",
      "-H",
      "webhook-timestamp: 1",
      "-H",
      "webhook-signature: nope",
      "--data",
      body,
    ]);
    expect(malformed.stdout).toMatch(/malformed/);
    expect((await cli(["verify", "--secret", secret, "-H", "broken", "--data", body])).code).toBe(2);
  });

  it("keypair create → sign --private-key (v1a) → verify --public-key, checked by hand with node:crypto both ways", async () => {
    const pair = JSON.parse((await cli(["keypair", "create", "--json"])).stdout) as Record<string, string>;
    expect(pair.privateKey).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    const body = '{"id":1,"name":"Fern"}';
    const signed = JSON.parse(
      (await cli(["sign", "--private-key", pair.privateKey as string, "--data", body, "--json"])).stdout,
    ) as Record<string, string>;
    expect(signed["webhook-signature"]).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    // An independent ed25519 verifier: node:crypto over the raw public key, the signed content built by hand.
    const raw = Buffer.from((pair.publicKey as string).slice(5), "base64");
    const publicKey = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") },
      format: "jwk",
    });
    const content = Buffer.from(`${signed["webhook-id"]}.${signed["webhook-timestamp"]}.${body}`);
    const signature = Buffer.from((signed["webhook-signature"] as string).slice(4), "base64");
    expect(nodeVerify(null, content, publicKey, signature)).toBe(true);
    expect(nodeVerify(null, Buffer.concat([content, Buffer.from(" ")]), publicKey, signature)).toBe(false);
    const headerArgs = (headers: Record<string, string>) =>
      Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
    expect(
      (await cli(["verify", "--public-key", pair.publicKey as string, ...headerArgs(signed), "--data", body]))
        .code,
    ).toBe(0);
    // The reverse: node:crypto signs with a key pair made by hand, the CLI verifies with its whpk_ form.
    const ours = generateKeyPairSync("ed25519");
    const x = Buffer.from(ours.publicKey.export({ format: "jwk" }).x as string, "base64url");
    const timestamp = String(Math.floor(Date.now() / 1000));
    const theirs = {
      "webhook-id": "msg_by_hand",
      "webhook-timestamp": timestamp,
      "webhook-signature": `v1a,${nodeSign(null, Buffer.from(`msg_by_hand.${timestamp}.${body}`), ours.privateKey).toString("base64")}`,
    };
    const byHand = ["--public-key", `whpk_${x.toString("base64")}`, ...headerArgs(theirs)];
    expect((await cli(["verify", ...byHand, "--data", body])).code).toBe(0);
    const wrong = await cli([
      "verify",
      "--public-key",
      pair.publicKey as string,
      ...headerArgs(theirs),
      "--data",
      body,
      "--json",
    ]);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ valid: false, code: "no_matching_signature" });
    // Both schemes at once (a migration): each verifier finds its own entry.
    const secret = createSecret();
    const both = JSON.parse(
      (
        await cli([
          "sign",
          "--secret",
          secret,
          "--private-key",
          pair.privateKey as string,
          "--data",
          body,
          "--json",
        ])
      ).stdout,
    ) as Record<string, string>;
    expect(both["webhook-signature"]).toMatch(/^v1,\S+ v1a,\S+$/);
    expect((await cli(["verify", "--secret", secret, ...headerArgs(both), "--data", body])).code).toBe(0);
    expect(
      (await cli(["verify", "--public-key", pair.publicKey as string, ...headerArgs(both), "--data", body]))
        .code,
    ).toBe(0);
    const none = await cli(["sign", "--data", body]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--secret whsec_… \(v1, HMAC\) and\/or --private-key/);
    const swapped = await cli([
      "verify",
      "--public-key",
      pair.privateKey as string,
      ...headerArgs(signed),
      "--data",
      body,
    ]);
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toMatch(/private key/);
    expect(swapped.stderr).not.toContain((pair.privateKey as string).slice(5, 25));
  });
});

describe("send and listen", () => {
  it("send reaches plant-store listen (signed); listen prints the event; --count sends unique ids with a summary", async () => {
    const token = createToken();
    const secret = createSecret();
    const listener = await background(
      (await import("./support.js")).CLI,
      ["listen", "--port", "0", "--token", token, "--secret", secret, "--json"],
      (_out, err) => err.split("\n").find((l) => l.includes('"listening"')),
    );
    try {
      const url = (JSON.parse(listener.info) as { listening: string }).listening;
      const sent = await cli([
        "send",
        url,
        "--token",
        token,
        "--secret",
        secret,
        "--name",
        "Fern",
        "--id",
        "7",
        "--json",
      ]);
      expect(sent.code).toBe(0);
      const result = JSON.parse(sent.stdout) as { status: number; webhookId: string };
      expect(result.status).toBe(200);
      const line = await until(() =>
        listener
          .stdout()
          .split("\n")
          .find((l) => l.includes(result.webhookId)),
      );
      // Fields not given come from the spec's example, its tag included.
      expect(JSON.parse(line).payload).toEqual({ id: 7, name: "Fern", tag: "tropical" });
      const many = await cli([
        "send",
        url,
        "--token",
        token,
        "--secret",
        secret,
        "--count",
        "50",
        "--concurrency",
        "8",
        "--json",
      ]);
      expect(many.code).toBe(0);
      expect(JSON.parse(many.stdout)).toMatchObject({ sent: 50, ok: 50, statuses: { "200": 50 } });
      await until(() => listener.stdout().trim().split("\n").length >= 51);
      const wrong = await cli(["send", url, "--token", createToken(), "--json"]);
      expect(wrong.code).toBe(1);
      expect(JSON.parse(wrong.stdout).status).toBe(401);
    } finally {
      await listener.stop();
    }
  });

  it("listen without --token/--secret generates both and prints them, and they work", async () => {
    const listener = await background(
      (await import("./support.js")).CLI,
      ["listen", "--port", "0", "--json"],
      (_out, err) => err.split("\n").find((l) => l.includes('"listening"')),
    );
    try {
      const intro = JSON.parse(listener.info) as { listening: string; token: string; secret: string };
      expect(intro.token).toMatch(/^psk_/);
      expect(intro.secret).toMatch(/^whsec_/);
      const sent = await cli([
        "send",
        intro.listening,
        "--token",
        intro.token,
        "--secret",
        intro.secret,
        "--json",
      ]);
      expect(JSON.parse(sent.stdout).status).toBe(200);
      const unsigned = await cli(["send", intro.listening, "--token", intro.token, "--json"]);
      expect(JSON.parse(unsigned.stdout).status).toBe(401);
    } finally {
      await listener.stop();
    }
  });

  it("listen --forward-to relays the exact bytes and headers: the signature still verifies downstream", async () => {
    const token = createToken();
    const secret = createSecret();
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const downstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.statusCode = 202;
        res.end();
      });
    });
    await new Promise<void>((r) => downstream.listen(0, "127.0.0.1", r));
    const target = `http://127.0.0.1:${(downstream.address() as { port: number }).port}/hook`;
    const listener = await background(
      (await import("./support.js")).CLI,
      ["listen", "--port", "0", "--token", token, "--secret", secret, "--forward-to", target],
      (_out, err) => /Listening on (\S+)/.exec(err)?.[1],
    );
    try {
      const body = '{ "id" : 5,\n  "name":"Žlutá růže 🌹" ,"tag":"rose"  }';
      const sent = await cli(["send", listener.info, "--token", token, "--secret", secret, "--data", body]);
      expect(sent.code).toBe(0);
      const got = await until(() => received[0]);
      expect(got.body).toBe(body);
      expect(got.headers.authorization).toBe(`Bearer ${token}`);
      const verdict = await verify({
        secrets: [secret],
        id: got.headers["webhook-id"] as string,
        timestamp: got.headers["webhook-timestamp"] as string,
        signature: got.headers["webhook-signature"] as string,
        body: got.body,
      });
      expect(verdict.ok).toBe(true);
      await until(() => listener.stdout().includes("→ 202"));
    } finally {
      await listener.stop();
      downstream.close();
    }
  });

  it("send to the real plant-store-receiver stores the event", async () => {
    const token = createToken();
    const admin = createToken();
    const receiver = await background(
      RECEIVER_BIN,
      ["--port", "0", "--token", token, "--admin-token", admin, "--db", ":memory:"],
      (out) => listeningUrl(out),
    );
    try {
      const sent = await cli(["send", `${receiver.info}/plant/webhook`, "--token", token, "--json"]);
      expect(JSON.parse(sent.stdout).status).toBe(200);
      const events = await (
        await fetch(`${receiver.info}/events`, { headers: { authorization: `Bearer ${admin}` } })
      ).json();
      expect((events as { data: unknown[] }).data).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });
});

describe("sender administration against a real plant-store-sender", () => {
  it(
    "subscriptions add/list/show/update/disable/enable/rotate, publish, deliveries list/show/resend, recover",
    async () => {
      const admin = createToken();
      const token = createToken();
      const secret = createSecret();
      const receiver = await background(
        RECEIVER_BIN,
        ["--port", "0", "--token", token, "--secret", secret, "--db", ":memory:"],
        (out) => listeningUrl(out),
      );
      const sender = await background(
        SENDER_BIN,
        ["--port", "0", "--admin-token", admin, "--db", ":memory:", "--allow-networks", "127.0.0.0/8"],
        (out) => listeningUrl(out),
      );
      const env = { PLANT_STORE_SENDER_URL: sender.info, PLANT_STORE_ADMIN_TOKEN: admin };
      const run = async (args: string[]) => {
        const r = await cli([...args, "--json"], { env });
        return { ...r, value: r.stdout ? JSON.parse(r.stdout) : null };
      };
      try {
        const added = await run([
          "subscriptions",
          "add",
          `${receiver.info}/plant/webhook`,
          "--token",
          token,
          "--secret",
          secret,
        ]);
        expect(added.code).toBe(0);
        // What the user passed is never printed back; what the sender generated is, once.
        expect(added.stdout).not.toContain(token);
        expect(added.stdout).not.toContain(secret);
        const id = added.value.id as string;
        expect((await run(["subscriptions", "list"])).value.data.map((s: { id: string }) => s.id)).toEqual([
          id,
        ]);
        const generated = await cli(["subscriptions", "add", `${receiver.info}/plant/webhook`], { env });
        expect(generated.stdout).toMatch(/token: psk_\S+/);
        expect(generated.stdout).toMatch(/secret: whsec_\S+/);
        expect(generated.stdout).toContain("Shown once");
        const generatedId = /^id: (\S+)/m.exec(generated.stdout)?.[1] as string;
        const newSecret = createSecret();
        const given = await cli(
          ["subscriptions", "rotate", generatedId, "--kind", "secret", "--value", newSecret],
          { env },
        );
        expect(given.code).toBe(0);
        expect(given.stdout).not.toContain(newSecret);
        await run(["subscriptions", "disable", generatedId]);
        expect((await run(["subscriptions", "show", id])).value.url).toBe(`${receiver.info}/plant/webhook`);
        expect((await run(["subscriptions", "disable", id, "--reason", "testing"])).value.enabled).toBe(
          false,
        );
        expect((await run(["subscriptions", "enable", id])).value.enabled).toBe(true);
        // Fields and endpoint options, on add and update.
        const optioned = await run([
          "subscriptions",
          "add",
          `${receiver.info}/plant/webhook`,
          "--uid",
          "ep-1",
          "--description",
          "Acme's endpoint",
          "--metadata",
          "team=growth",
          "--metadata",
          "tier=gold",
          "--rate-limit",
          "5",
          "--header",
          "X-Tenant:acme",
          "--header",
          "x-region=eu",
        ]);
        expect(optioned.value).toMatchObject({
          uid: "ep-1",
          description: "Acme's endpoint",
          metadata: { team: "growth", tier: "gold" },
          rateLimit: 5,
          headerNames: ["x-tenant", "x-region"],
        });
        const optionedId = optioned.value.id as string;
        expect(
          (await run(["subscriptions", "update", optionedId, "--rate-limit", "none", "--no-headers"])).value,
        ).toMatchObject({ rateLimit: null, headerNames: [], uid: "ep-1" });
        expect(
          (await run(["subscriptions", "update", optionedId, "--rate-limit", "2.5", "--description", "x"]))
            .value,
        ).toMatchObject({ rateLimit: 2.5, description: "x", metadata: { team: "growth", tier: "gold" } });
        const refused = await cli(["subscriptions", "update", optionedId, "--header", "webhook-id:x"], {
          env,
        });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/400: .*webhook-id/);
        expect(
          (await cli(["subscriptions", "update", optionedId, "--header", "novalue"], { env })).code,
        ).toBe(2);
        expect(
          (await cli(["subscriptions", "update", optionedId, "--rate-limit", "fast"], { env })).code,
        ).toBe(2);
        await run(["subscriptions", "disable", optionedId]);
        const published = await run(["publish", "--id", "11", "--name", "Aloe", "--idempotency-key", "k-1"]);
        expect(published.value).toMatchObject({ deliveries: 1, duplicate: false });
        const delivered = await until(async () => {
          const list = await run(["deliveries", "list", "--state", "delivered"]);
          return list.value.data[0];
        });
        // Pages: two more events make three deliveries; --limit 1 shows one and the cursor of the next.
        await run(["publish", "--id", "12", "--name", "Basil"]);
        await run(["publish", "--id", "13", "--name", "Sage"]);
        const page1 = await cli(["deliveries", "list", "--limit", "1"], { env });
        expect(page1.stdout.trim().split("\n")).toHaveLength(2);
        const cursor = /--cursor (\S+)/.exec(page1.stdout)?.[1] as string;
        expect(cursor).toBeTruthy();
        const page2 = await run(["deliveries", "list", "--limit", "1", "--cursor", cursor]);
        expect(page2.value.data).toHaveLength(1);
        expect(page1.stdout.startsWith(`${page2.value.data[0].id} `)).toBe(false);
        const all = await run(["deliveries", "list", "--limit", "3"]);
        expect(all.value.data).toHaveLength(3);
        expect((await cli(["deliveries", "list", "--limit", "0"], { env })).code).toBe(2);
        const shown = await run(["deliveries", "show", String(delivered.id)]);
        expect(shown.value.attemptLog[0].status).toBe(200);
        expect((await run(["deliveries", "resend", String(delivered.id)])).code).toBe(0);
        expect((await run(["recover", id, "--since", "2020-01-01T00:00:00Z"])).value).toEqual({
          requeued: 0,
        });
        const rotated = await run(["subscriptions", "rotate", id, "--kind", "secret", "--grace", "60"]);
        expect(rotated.value.secret).toMatch(/^whsec_/);
        const missing = await cli(["subscriptions", "show", "sub_nope"], { env });
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(/404/);
        const noToken = await cli(["subscriptions", "list"], {
          env: { PLANT_STORE_SENDER_URL: sender.info },
        });
        expect(noToken.code).toBe(2);
        // The apps' older list name works here too (its first entry).
        const older = await cli(["subscriptions", "list", "--json"], {
          env: { PLANT_STORE_SENDER_URL: sender.info, PLANT_STORE_ADMIN_TOKENS: `${admin},psk_other` },
        });
        expect(older.code).toBe(0);
      } finally {
        await sender.stop();
        await receiver.stop();
      }
    },
    budget(28),
  );
});

describe("applications and portal links against a real plant-store-sender", () => {
  it(
    "applications add/list/show/update/revoke-links/delete and portal-link",
    async () => {
      const admin = createToken();
      const sender = await background(
        SENDER_BIN,
        ["--port", "0", "--admin-token", admin, "--db", ":memory:", "--allow-networks", "127.0.0.0/8"],
        (out) => listeningUrl(out),
      );
      const env = { PLANT_STORE_SENDER_URL: sender.info, PLANT_STORE_ADMIN_TOKEN: admin };
      const run = async (args: string[]) => {
        const r = await cli([...args, "--json"], { env });
        return { ...r, value: r.stdout ? JSON.parse(r.stdout) : null };
      };
      try {
        const added = await run(["applications", "add", "cust_42", "--name", "Acme Gardens"]);
        expect(added.value).toMatchObject({ uid: "cust_42", name: "Acme Gardens" });
        const listed = await cli(["applications", "list"], { env });
        expect(listed.stdout).toContain(`${added.value.id}  cust_42  Acme Gardens`);
        expect((await run(["applications", "show", "cust_42"])).value.id).toBe(added.value.id);
        expect((await run(["applications", "update", "cust_42", "--name", "Acme"])).value.name).toBe("Acme");
        const link = await cli(["portal-link", "cust_42", "--expires-in", "600"], { env });
        expect(link.code).toBe(0);
        const token = /^token: (pst_\S+)$/m.exec(link.stdout)?.[1] as string;
        expect(link.stdout).toContain(`url: ${sender.info}/console/#token=${token}`);
        expect(link.stdout).toContain("Shown once");
        const session = await fetch(`${sender.info}/session`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(await session.json()).toMatchObject({ role: "portal", application: { uid: "cust_42" } });
        expect((await cli(["portal-link", "cust_42", "--expires-in", "5"], { env })).code).toBe(2);
        expect((await cli(["portal-link", "cust_42", "--expires-in", "soon"], { env })).code).toBe(2);
        expect((await run(["applications", "revoke-links", "cust_42"])).value).toEqual({
          id: added.value.id,
          revoked: true,
        });
        const refused = await fetch(`${sender.info}/session`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(refused.status).toBe(401);
        expect((await run(["applications", "delete", "cust_42"])).value).toMatchObject({ deleted: true });
        const missing = await cli(["applications", "show", "cust_42"], { env });
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(/404/);
        expect((await cli(["applications", "add", "x"], { env })).code).toBe(2);
      } finally {
        await sender.stop();
      }
    },
    budget(12),
  );
});
