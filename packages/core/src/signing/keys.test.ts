import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { implementations } from "../../test/support/crypto-implementations.js";
import { fromBase64, toBase64 } from "../encoding.js";
import { createSigning } from "./create-signing.js";
import { createKeyPair, parsePrivateKey, parsePublicKey, publicKeyOf, sign, verify } from "./index.js";

const T = 1_700_000_000;
const message = { id: "msg_01HZX3", timestamp: T, body: '{"id":1,"name":"Fern"}' };
const now = () => T * 1000;

/** An independent ed25519 implementation for the held-out checks: node:crypto with JWK keys, by hand. */
function nodeKeys(privateKey: string) {
  const bytes = Buffer.from(privateKey.slice(5), "base64");
  const jwk = {
    kty: "OKP",
    crv: "Ed25519",
    d: bytes.subarray(0, 32).toString("base64url"),
    x: bytes.subarray(32).toString("base64url"),
  };
  return {
    privateKey: createPrivateKey({ key: jwk, format: "jwk" }),
    publicKey: createPublicKey({ key: jwk, format: "jwk" }),
  };
}

describe.each(implementations)("ed25519 keys on $implementation crypto", (crypto) => {
  const signing = createSigning(crypto);

  it("creates whsk_ (64 bytes: seed and public key) and whpk_ (32 bytes) keys", async () => {
    const pair = await signing.createKeyPair();
    expect(pair.privateKey).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(fromBase64(pair.privateKey.slice(5))?.subarray(32)).toEqual(fromBase64(pair.publicKey.slice(5)));
    expect(await signing.publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
    expect((await signing.createKeyPair()).privateKey).not.toBe(pair.privateKey);
  });

  it("derives the public key node:crypto derives (RFC 8032)", async () => {
    const seed = new Uint8Array(32).map((_, i) => i);
    const pair = await signing.createKeyPair({ random: () => seed });
    const jwk = nodeKeys(pair.privateKey).publicKey.export({ format: "jwk" });
    const independent = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", d: Buffer.from(seed).toString("base64url"), x: jwk.x as string },
      format: "jwk",
    });
    expect(pair.publicKey).toBe(
      `whpk_${Buffer.from(independent.export({ format: "jwk" }).x as string, "base64url").toString("base64")}`,
    );
  });

  it("signs v1a so that node:crypto verifies it, and verifies what node:crypto signs", async () => {
    const pair = await signing.createKeyPair();
    const keys = nodeKeys(pair.privateKey);
    const content = Buffer.from(`${message.id}.${message.timestamp}.${message.body}`);
    const ours = await signing.sign({ ...message, privateKey: pair.privateKey });
    expect(ours).toMatch(/^v1a,/);
    expect(nodeVerify(null, content, keys.publicKey, Buffer.from(ours.slice(4), "base64"))).toBe(true);
    const theirs = `v1a,${nodeSign(null, content, keys.privateKey).toString("base64")}`;
    const input = {
      publicKeys: [pair.publicKey],
      id: message.id,
      signature: theirs,
      body: message.body,
      now,
    };
    expect(await signing.verify({ ...input, timestamp: String(T) })).toEqual({ ok: true, timestamp: T });
    expect(await signing.verify({ ...input, timestamp: T, body: `${message.body} ` })).toMatchObject({
      ok: false,
      code: "no_matching_signature",
    });
  });

  it("takes a bare 32-byte seed as a whsk_ key, and signs the same", async () => {
    const pair = await signing.createKeyPair();
    const seedOnly = `whsk_${toBase64(parsePrivateKey(pair.privateKey).seed)}`;
    expect(await signing.publicKeyOf(seedOnly)).toBe(pair.publicKey);
    expect(await signing.sign({ ...message, privateKey: seedOnly })).toBe(
      await signing.sign({ ...message, privateKey: pair.privateKey }),
    );
  });

  it("refuses a whsk_ key whose halves come from two pairs, never echoing it", async () => {
    const a = await signing.createKeyPair();
    const b = await signing.createKeyPair();
    const spliced = `whsk_${toBase64(new Uint8Array([...parsePrivateKey(a.privateKey).seed, ...parsePublicKey(b.publicKey)]))}`;
    const error = await signing.sign({ ...message, privateKey: spliced }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "invalid_key",
      message: expect.stringContaining("not made as one pair"),
    });
    expect(String((error as Error).message)).not.toContain(spliced.slice(5, 20));
  });

  it("signs one header with secrets and keys, v1 first (a migration), and each receiver verifies its part", async () => {
    const pair = await signing.createKeyPair();
    const secret = `whsec_${toBase64(new Uint8Array(32).fill(4))}`;
    const header = await signing.signatureHeader({
      ...message,
      secrets: [secret],
      privateKeys: [pair.privateKey],
    });
    expect(header).toMatch(/^v1,\S+ v1a,\S+$/);
    const base = { id: message.id, timestamp: T, signature: header, body: message.body, now };
    expect(await signing.verify({ ...base, secrets: [secret] })).toEqual({ ok: true, timestamp: T });
    expect(await signing.verify({ ...base, publicKeys: [pair.publicKey] })).toEqual({
      ok: true,
      timestamp: T,
    });
    expect(await signing.signatureHeader({ ...message, privateKeys: [pair.privateKey] })).toMatch(
      /^v1a,\S+$/,
    );
  });
});

describe("key parsing", () => {
  it.each([
    ["a whsk_ key as public key", () => parsePublicKey("whsk_AAAA"), "private key"],
    ["a whpk_ key as private key", () => parsePrivateKey("whpk_AAAA"), "public key"],
    ["a whsec_ secret as public key", () => parsePublicKey("whsec_AAAA"), "'whpk_' followed by base64"],
    ["a short public key", () => parsePublicKey(`whpk_${toBase64(new Uint8Array(31))}`), "32 bytes"],
    ["a private key of 48 bytes", () => parsePrivateKey(`whsk_${toBase64(new Uint8Array(48))}`), "64 bytes"],
    ["bad base64", () => parsePublicKey("whpk_n*pe"), "not base64"],
  ])("refuses %s with invalid_key", (_, parse, fragment) => {
    expect(parse).toThrow(
      expect.objectContaining({ code: "invalid_key", message: expect.stringContaining(fragment) }),
    );
  });

  it("verify needs a secret or a public key, and names a bad key's position in a rotation set", async () => {
    const input = { id: "msg_1", timestamp: "1", signature: "v1,x", body: "" };
    await expect(verify({ ...input, secrets: [], publicKeys: [] })).rejects.toMatchObject({
      code: "invalid_secret",
      message: expect.stringContaining("'whpk_…' public key"),
    });
    const { publicKey } = await createKeyPair();
    await expect(verify({ ...input, publicKeys: [publicKey, "whpk_x"] })).rejects.toMatchObject({
      code: "invalid_key",
      message: expect.stringMatching(/^Public key 2 of 2: /),
    });
  });

  it("the bound functions use #crypto", async () => {
    const pair = await createKeyPair();
    expect(await publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
    const signature = await sign({ ...message, privateKey: pair.privateKey });
    expect(await verify({ publicKeys: [pair.publicKey], ...message, signature, now })).toEqual({
      ok: true,
      timestamp: T,
    });
  });
});
