import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSigning } from "../src/signing/create-signing.js";
import { implementations } from "./support/crypto-implementations.js";
import { buildVectors, type VectorsFile } from "./support/vector-cases.js";

const FILE = new URL("../vectors.json", import.meta.url);
if (process.env.UPDATE_VECTORS) writeFileSync(FILE, `${JSON.stringify(buildVectors(), null, 2)}\n`);
const committed = JSON.parse(readFileSync(FILE, "utf8")) as VectorsFile;

describe("vectors.json", () => {
  it("is what test/support/vector-cases.ts generates (run with UPDATE_VECTORS=1 after changing the cases)", () => {
    expect(committed).toEqual(buildVectors());
  });

  it("carries the public Standard Webhooks example", () => {
    expect(committed.vectors[0]).toMatchObject({
      name: "standard-webhooks-reference",
      signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });

  it("covers every failure code", () => {
    const codes = new Set(committed.vectors.map((v) => (v.expected.ok ? "ok" : v.expected.code)));
    expect([...codes].sort()).toEqual(
      [
        "ok",
        "missing_headers",
        "malformed_id",
        "malformed_timestamp",
        "malformed_signature",
        "timestamp_too_old",
        "timestamp_in_future",
        "no_matching_signature",
      ].sort(),
    );
  });
});

describe.each(implementations)("vectors on $implementation crypto", (crypto) => {
  const { verify, sign, publicKeyOf } = createSigning(crypto);

  it.each(committed.keyPairs.map((pair) => [pair.name, pair] as const))(
    "key pair %s: the public key is the private key's, and signing reproduces the v1a signatures",
    async (_, pair) => {
      expect(await publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
      const valid = committed.vectors.find((v) => v.name === "v1a-valid");
      if (!valid?.id || !valid.timestamp || !valid.signature) throw new Error("v1a-valid vector missing");
      const ours = await sign({
        privateKey: pair.privateKey,
        id: valid.id,
        timestamp: valid.timestamp,
        body: valid.body,
      });
      expect(ours === valid.signature).toBe(valid.publicKeys.includes(pair.publicKey));
    },
  );

  it.each(committed.vectors.map((vector) => [vector.name, vector] as const))("%s", async (_, vector) => {
    const result = await verify({
      secrets: vector.secrets,
      publicKeys: vector.publicKeys,
      id: vector.id,
      timestamp: vector.timestamp,
      signature: vector.signature,
      body: vector.body,
      now: () => vector.now * 1000,
      toleranceSeconds: vector.toleranceSeconds,
    });
    const { ok } = result;
    expect(ok ? result : { ok, code: result.code }).toEqual(vector.expected);
  });
});
