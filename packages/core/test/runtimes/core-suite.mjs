// Core's signing, verification, token and Fetch-adapter receive checks, written once for every runtime: run by
// test/runtimes.test.ts under Node, Bun and Deno against the built package (dist/), as users import it.
// Plain JavaScript and node:assert only, so no runtime needs a test framework or a TypeScript loader.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import {
  checkTokenFormat,
  createKeyPair,
  createMemoryDedup,
  createSecret,
  createSigning,
  createToken,
  createTokenVerifier,
  hashToken,
  parsePrivateKey,
  signatureHeader,
} from "@plant-store/core";
import { createFetchHandler } from "@plant-store/core/fetch";
import vectorsFile from "@plant-store/core/vectors.json" with { type: "json" };
import { implementation as platformCrypto } from "#crypto";
import * as nodeCrypto from "../../dist/crypto/node.js";
import * as webCrypto from "../../dist/crypto/web.js";

const runtime = typeof Bun !== "undefined" ? "bun" : typeof Deno !== "undefined" ? "deno" : "node";
const only = (globalThis.process?.argv ?? []).find((arg) => arg.startsWith("--only="))?.slice(7);
let passed = 0;
let failed = 0;

async function test(name, body) {
  if (only && !name.includes(only)) return;
  try {
    await body();
    passed++;
  } catch (error) {
    failed++;
    console.log(`FAIL ${runtime}: ${name}\n  ${error?.stack ?? error}`);
  }
}

const providers = { node: nodeCrypto, web: webCrypto };
const PLANT = '{"id":1,"name":"Monstera deliciosa","tag":"tropical"}';

await test(`#crypto resolves to the expected implementation`, () => {
  // Bun and Deno match the "node" export condition, so they get node:crypto (which both implement).
  assert.equal(platformCrypto, globalThis.process?.env?.EXPECT_CRYPTO ?? platformCrypto);
});

for (const [name, provider] of Object.entries(providers)) {
  const signing = createSigning(provider);

  await test(`${name} crypto: every vector of vectors.json`, async () => {
    for (const vector of vectorsFile.vectors) {
      const result = await signing.verify({
        secrets: vector.secrets,
        publicKeys: vector.publicKeys,
        id: vector.id,
        timestamp: vector.timestamp,
        signature: vector.signature,
        body: vector.body,
        now: () => vector.now * 1000,
        toleranceSeconds: vector.toleranceSeconds,
      });
      const verdict = result.ok ? result : { ok: false, code: result.code };
      assert.deepEqual(verdict, vector.expected, vector.name);
    }
  });

  await test(`${name} crypto: signing reproduces the v1 reference and the v1a vectors`, async () => {
    const reference = vectorsFile.vectors[0];
    assert.equal(
      await signing.sign({
        secret: reference.secrets[0],
        id: reference.id,
        timestamp: reference.timestamp,
        body: reference.body,
      }),
      reference.signature,
    );
    const valid = vectorsFile.vectors.find((v) => v.name === "v1a-valid");
    const pair = vectorsFile.keyPairs.find((p) => p.publicKey === valid.publicKeys[0]);
    assert.equal(await signing.publicKeyOf(pair.privateKey), pair.publicKey);
    assert.equal(
      await signing.sign({
        privateKey: pair.privateKey,
        id: valid.id,
        timestamp: valid.timestamp,
        body: valid.body,
      }),
      valid.signature,
    );
  });

  await test(`${name} crypto: v1 and v1a round trips, rotation, tampering, the HMAC of node:crypto by hand`, async () => {
    const secret = signing.createSecret();
    const pair = await signing.createKeyPair();
    const other = await signing.createKeyPair();
    const timestamp = Math.floor(Date.now() / 1000);
    const header = await signing.signatureHeader({
      secrets: [secret],
      privateKeys: [pair.privateKey],
      id: "msg_1",
      timestamp,
      body: PLANT,
    });
    const input = { id: "msg_1", timestamp, signature: header, body: PLANT };
    assert.deepEqual(await signing.verify({ ...input, secrets: [secret] }), { ok: true, timestamp });
    assert.deepEqual(await signing.verify({ ...input, publicKeys: [other.publicKey, pair.publicKey] }), {
      ok: true,
      timestamp,
    });
    const tampered = await signing.verify({ ...input, publicKeys: [pair.publicKey], body: `${PLANT} ` });
    assert.equal(tampered.code, "no_matching_signature");
    const key = parsePrivateKey(pair.privateKey);
    assert.equal(key.seed.length, 32);
    const expected = createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
      .update(`msg_1.${timestamp}.${PLANT}`)
      .digest("base64");
    assert.equal(header.split(" ")[0], `v1,${expected}`);
  });

  await test(`${name} crypto: constant-time compare and random bytes`, () => {
    assert.equal(provider.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
    assert.equal(provider.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])), false);
    assert.equal(provider.timingSafeEqual(new Uint8Array([1]), new Uint8Array([1, 2])), false);
    assert.equal(provider.randomBytes(70_000).length, 70_000);
  });
}

await test("tokens: create, check, hash and verify (several accepted, clear or hashed)", async () => {
  const token = createToken();
  assert.match(token, /^psk_/);
  assert.deepEqual(checkTokenFormat(token), { ok: true });
  // One character changed (never to itself: a token ending in "x" stayed valid with "x" put back).
  assert.equal(checkTokenFormat(`${token.slice(0, -1)}${token.endsWith("x") ? "y" : "x"}`).ok, false);
  const hashed = await hashToken(token);
  assert.match(hashed, /^sha256:[0-9a-f]{64}$/);
  const verifier = createTokenVerifier([createToken(), hashed]);
  assert.equal(await verifier.verify(token), true);
  assert.equal(await verifier.verify(createToken()), false);
});

await test("Fetch adapter: every outcome of the receive pipeline", async () => {
  const token = createToken();
  const secret = createSecret();
  const pair = await createKeyPair();
  const events = [];
  const handler = createFetchHandler({
    tokens: [token],
    secrets: [secret],
    publicKeys: [pair.publicKey],
    maxBodyBytes: 1024,
    dedup: createMemoryDedup(),
    onEvent: (event) => {
      events.push(event);
    },
  });
  const post = async (
    body,
    { id = "msg_1", key = { secrets: [secret] }, auth = token, type = "application/json" } = {},
  ) => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signatureHeader({ ...key, id, timestamp, body });
    const response = await handler(
      new Request("http://receiver.test/plant/webhook", {
        method: "POST",
        body,
        headers: {
          authorization: `Bearer ${auth}`,
          "content-type": type,
          "webhook-id": id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signature,
        },
      }),
    );
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  assert.equal((await post(PLANT)).status, 200);
  assert.equal((await post(PLANT)).status, 200, "a duplicate is answered 200");
  assert.equal((await post(PLANT, { id: "msg_2", key: { privateKeys: [pair.privateKey] } })).status, 200);
  assert.equal(events.length, 2);
  assert.deepEqual(events[0].payload, { id: 1n, name: "Monstera deliciosa", tag: "tropical" });
  assert.equal(new TextDecoder().decode(events[0].body), PLANT);
  assert.equal((await post(PLANT, { id: "msg_3", auth: createToken() })).status, 401);
  const stranger = await createKeyPair();
  assert.equal((await post(PLANT, { id: "msg_4", key: { privateKeys: [stranger.privateKey] } })).status, 401);
  assert.equal((await post('{"id":"x"}', { id: "msg_5" })).status, 422);
  assert.equal((await post("{not json", { id: "msg_6" })).status, 400);
  assert.equal((await post(PLANT, { id: "msg_7", type: "text/plain" })).status, 415);
  const large = await post(`{"id":1,"name":"${"x".repeat(2000)}"}`, { id: "msg_8" });
  assert.deepEqual(large, { status: 413, body: { error: 413, message: large.body.message } });
  const get = await handler(new Request("http://receiver.test/plant/webhook"));
  assert.equal(get.status, 405);
  assert.equal(events.length, 2);
});

async function signedRequest(url, body, { token, secret, privateKey, id }) {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await signatureHeader({
    ...(secret && { secrets: [secret] }),
    ...(privateKey && { privateKeys: [privateKey] }),
    id,
    timestamp,
    body,
  });
  return new Request(url, {
    method: "POST",
    body,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signature,
    },
  });
}

await test("README example: Workers-style `export default { fetch }`", async () => {
  const { default: worker } = await import("../../examples/workers.mjs");
  const token = createToken();
  const pair = await createKeyPair();
  const kv = new Map();
  const env = {
    PLANT_STORE_TOKEN: token,
    PLANT_STORE_WEBHOOK_PUBLIC_KEY: pair.publicKey,
    EVENTS: { put: async (key, value) => void kv.set(key, value) },
  };
  const request = await signedRequest("https://worker.example/plant/webhook", PLANT, {
    token,
    privateKey: pair.privateKey,
    id: "msg_w1",
  });
  assert.equal((await worker.fetch(request, env)).status, 200);
  assert.equal(kv.get("msg_w1"), PLANT);
  const unsigned = new Request("https://worker.example/plant/webhook", {
    method: "POST",
    body: PLANT,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
  assert.equal((await worker.fetch(unsigned, env)).status, 401);
});

if (runtime === "bun" || runtime === "deno") {
  await test(`README example: ${runtime === "bun" ? "Bun.serve" : "Deno.serve"} over a real socket`, async () => {
    const token = createToken();
    const secret = createSecret();
    const set = (name, value) => {
      if (runtime === "bun") Bun.env[name] = value;
      else Deno.env.set(name, value);
    };
    set("PLANT_STORE_TOKEN", token);
    set("PLANT_STORE_WEBHOOK_SECRET", secret);
    set("PORT", "0");
    const example = await import(
      runtime === "bun" ? "../../examples/bun-serve.mjs" : "../../examples/deno-serve.mjs"
    );
    const port = runtime === "bun" ? example.server.port : example.server.addr.port;
    try {
      const url = `http://127.0.0.1:${port}/plant/webhook`;
      const response = await fetch(await signedRequest(url, PLANT, { token, secret, id: "msg_s1" }));
      assert.equal(response.status, 200);
      await response.body?.cancel();
      assert.deepEqual(example.received, [{ id: 1n, name: "Monstera deliciosa", tag: "tropical" }]);
      const wrong = await fetch(
        await signedRequest(url, PLANT, { token, secret: createSecret(), id: "msg_s2" }),
      );
      assert.equal(wrong.status, 401);
      assert.equal((await wrong.json()).error, 401);
    } finally {
      await (runtime === "bun" ? example.server.stop(true) : example.server.shutdown());
    }
  });
}

// The closing line a test runner would print, read by test/runtimes.test.ts.
console.log(`core on ${runtime} (#crypto: ${platformCrypto}): ${passed} passed, ${failed} failed`);
if (failed > 0 || passed === 0) globalThis.process.exitCode = 1;
