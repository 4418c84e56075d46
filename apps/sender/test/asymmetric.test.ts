import { join } from "node:path";
import { createKeyPair, type KeyPair, verify } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender } from "../src/index.js";
import {
  ADMIN,
  api,
  cleanup,
  RECEIVER_BIN,
  type Running,
  SECRET,
  SENDER_BIN,
  sink,
  start,
  stop,
  TOKEN,
  tempDir,
  until,
} from "./support.js";

let sender: Running;
let previous: KeyPair;
let current: KeyPair;
beforeAll(async () => {
  [previous, current] = await Promise.all([createKeyPair(), createKeyPair()]);
  // A key rotation in progress: the sender signs with both private keys.
  sender = await start(SENDER_BIN, [
    "--admin-token",
    ADMIN,
    "--db",
    join(tempDir(), "sender.db"),
    "--allow-networks",
    "127.0.0.0/8",
    "--private-key",
    `${previous.privateKey},${current.privateKey}`,
  ]);
});
afterAll(async () => {
  expect(await stop(sender)).toBe(0);
  cleanup();
});

describe("per-subscription signing scheme (v1a, ed25519)", () => {
  it("an asymmetric subscription is stored by a receiver that holds only the public key", async () => {
    const receiver = await start(RECEIVER_BIN, [
      "--token",
      TOKEN,
      "--public-key",
      current.publicKey,
      "--admin-token",
      ADMIN,
      "--db",
      ":memory:",
    ]);
    try {
      const created = await api(sender.url, "POST", "/subscriptions", {
        url: `${receiver.url}/plant/webhook`,
        token: TOKEN,
        signing: "asymmetric",
      });
      expect(created.status).toBe(201);
      expect(created.body.signing).toBe("asymmetric");
      const { messageId } = (await api(sender.url, "POST", "/events", '{"id":1,"name":"Fern"}')).body;
      const stored = await until(async () => {
        const res = await fetch(`${receiver.url}/events`, { headers: { authorization: `Bearer ${ADMIN}` } });
        const data = ((await res.json()) as { data: { webhookId: string }[] }).data;
        return data.length > 0 && data;
      });
      expect(stored.map((e) => e.webhookId)).toEqual([messageId]);
      await api(sender.url, "PATCH", `/subscriptions/${created.body.id}`, { signing: "symmetric" });
    } finally {
      await stop(receiver);
    }
  });

  it("each scheme sends exactly its signatures: v1 per secret, v1a per private key", async () => {
    const targets = {
      default: await sink((_req, res) => res.end()),
      asymmetric: await sink((_req, res) => res.end()),
      both: await sink((_req, res) => res.end()),
    };
    try {
      const subscribe = async (signing: keyof typeof targets) => {
        const res = await api(sender.url, "POST", "/subscriptions", {
          url: targets[signing].url,
          token: TOKEN,
          secret: SECRET,
          ...(signing !== "default" && { signing }),
        });
        expect(res.status).toBe(201);
        return res.body as { id: string; signing: string };
      };
      expect((await subscribe("default")).signing).toBe("symmetric");
      await subscribe("asymmetric");
      const both = await subscribe("both");
      await api(sender.url, "POST", "/events", '{"id":2,"name":"Moss"}');
      const received = async (name: keyof typeof targets) =>
        until(async () => targets[name].requests.length > 0 && targets[name].requests[0]);
      const byName = {
        default: await received("default"),
        asymmetric: await received("asymmetric"),
        both: await received("both"),
      };
      const signatureOf = (name: keyof typeof targets) => byName[name].headers["webhook-signature"] as string;
      expect(signatureOf("default")).toMatch(/^v1,\S+$/);
      expect(signatureOf("asymmetric")).toMatch(/^v1a,\S+ v1a,\S+$/);
      expect(signatureOf("both")).toMatch(/^v1,\S+ v1a,\S+ v1a,\S+$/);
      for (const [name, keys] of [
        ["asymmetric", { publicKeys: [previous.publicKey] }],
        ["asymmetric", { publicKeys: [current.publicKey] }],
        ["both", { secrets: [SECRET] }],
        ["both", { publicKeys: [current.publicKey] }],
      ] as const) {
        const request = byName[name];
        const verdict = await verify({
          ...keys,
          id: request.headers["webhook-id"] as string,
          timestamp: request.headers["webhook-timestamp"] as string,
          signature: request.headers["webhook-signature"] as string,
          body: request.body,
        });
        expect(verdict, `${name} ${JSON.stringify(keys)}`).toMatchObject({ ok: true });
      }
      const patched = await api(sender.url, "PATCH", `/subscriptions/${both.id}`, { signing: "sideways" });
      expect(patched).toMatchObject({
        status: 400,
        body: { error: 400, message: expect.stringContaining("signing must be one of") },
      });
    } finally {
      await Promise.all(Object.values(targets).map((target) => target.close()));
    }
  });

  it("a sender without --private-key refuses asymmetric subscriptions with a message saying what to do", async () => {
    const own = await createSender({ adminTokens: [ADMIN], allowNetworks: ["127.0.0.0/8"], worker: false });
    const url = await own.listen(0, "127.0.0.1");
    try {
      for (const signing of ["asymmetric", "both"]) {
        const res = await api(url, "POST", "/subscriptions", { url: "http://127.0.0.1:9/hook", signing });
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/--private-key whsk_… .*plant-store keypair create/);
      }
    } finally {
      await own.close();
    }
    const spliced = `whsk_${Buffer.concat([
      Buffer.from(previous.privateKey.slice(5), "base64").subarray(0, 32),
      Buffer.from(current.publicKey.slice(5), "base64"),
    ]).toString("base64")}`;
    await expect(
      createSender({ adminTokens: [ADMIN], privateKeys: [spliced], worker: false }),
    ).rejects.toMatchObject({
      code: "invalid_key",
      message: expect.stringContaining("not made as one pair"),
    });
  });
});
