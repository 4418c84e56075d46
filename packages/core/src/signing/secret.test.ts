import { describe, expect, it } from "vitest";
import { thrown } from "../../test/helpers.js";
import * as nodeCrypto from "../crypto/node.js";
import { fromBase64, toBase64 } from "../encoding.js";
import { createKept } from "../kept.js";
import { createSecret, parseSecret } from "./index.js";
import { parseSecrets, SIGNING_KEYS_KEPT, signingKeys } from "./secret.js";
import { signatureHeaderWith } from "./sign.js";

const STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("createSecret", () => {
  it("is whsec_ + base64 of 32 random bytes", () => {
    const secret = createSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(fromBase64(secret.slice(6))).toHaveLength(32);
    expect(createSecret()).not.toBe(secret);
  });

  it("uses an injected random source, and checks what it returns", () => {
    const bytes = new Uint8Array(32).map((_, i) => i);
    expect(createSecret({ random: () => bytes })).toBe(`whsec_${toBase64(bytes)}`);
    expect(() => createSecret({ random: () => new Uint8Array(31) })).toThrow(/31 bytes/);
  });
});

describe("parseSecret", () => {
  it("decodes the key of a whsec_ secret", () => {
    expect(parseSecret(STANDARD_SECRET)).toEqual(fromBase64("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
    expect(parseSecret(createSecret())).toHaveLength(32);
  });

  it("takes the secret without its whsec_ prefix, as standardwebhooks and svix do", () => {
    expect(parseSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toEqual(parseSecret(STANDARD_SECRET));
  });

  it.each([
    ["an ed25519 private key", "whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "ed25519 private key ('whsk_…')"],
    ["an ed25519 public key", "whpk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "ed25519 public key ('whpk_…')"],
    ["another prefix", "whsex_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "not valid base64"],
    ["a trailing line break", `${STANDARD_SECRET}\n`, "not valid base64"],
    ["url-safe base64", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La_-Sw", "not valid base64"],
    ["a short key", `whsec_${toBase64(new Uint8Array(16).fill(7))}`, "holds 16 bytes; use 24 to 64"],
    ["a long key", `whsec_${toBase64(new Uint8Array(65).fill(7))}`, "holds 65 bytes"],
    ["an empty key", "whsec_", "holds 0 bytes"],
  ])("refuses %s with invalid_secret, never echoing it", (_, secret, fragment) => {
    const error = thrown(() => parseSecret(secret));
    expect(error.code).toBe("invalid_secret");
    expect(error.message).toContain(fragment);
    if (secret.length > 10) expect(error.message).not.toContain(secret.slice(6, 20));
  });

  it("names the position of a bad secret in a rotation set", () => {
    const error = thrown(() => parseSecrets([STANDARD_SECRET, "whsec_n*pe"]));
    expect(error).toMatchObject({ code: "invalid_secret" });
    expect(error.message).toMatch(/^Signing secret 2 of 2: .*not valid base64/);
    expect(thrown(() => parseSecrets([])).message).toContain("No signing secret is configured");
  });
});

const kept = createKept<Uint8Array>(SIGNING_KEYS_KEPT);
const keptKeys = (secrets: readonly string[]) => signingKeys(secrets, kept);

describe("signingKeys", () => {
  it("decodes as parseSecrets does, with the same errors, and keeps the bytes for the same secret text", () => {
    const secret = createSecret();
    const [key] = keptKeys([secret]);
    expect(key).toEqual(parseSecret(secret));
    expect(keptKeys([secret])[0]).toBe(key);
    expect(parseSecret(secret)).not.toBe(key); // the public parse always returns its own bytes
    const bad = [
      [STANDARD_SECRET, "whsec_n*pe"],
      ["whsec_n*pe"],
      ["whsec_AAAA"],
      ["whpk_AAAA"],
      [],
      [42 as unknown as string],
    ];
    for (const secrets of bad) {
      const error = thrown(() => keptKeys(secrets));
      expect(error, String(secrets)).toMatchObject({ code: "invalid_secret" });
      expect(error.message, String(secrets)).toBe(thrown(() => parseSecrets(secrets)).message);
    }
  });

  it(`keeps at most ${SIGNING_KEYS_KEPT} secrets, dropping the least recently used`, () => {
    const [first, second] = [createSecret(), createSecret()];
    const firstKey = keptKeys([first])[0];
    const secondKey = keptKeys([second])[0];
    // SIGNING_KEYS_KEPT − 1 others, with `first` used again halfway: `second` is then the least recently used.
    for (let i = 0; i < SIGNING_KEYS_KEPT - 1; i++) {
      if (i === SIGNING_KEYS_KEPT / 2) keptKeys([first]);
      keptKeys([createSecret()]);
    }
    expect(keptKeys([first])[0]).toBe(firstKey);
    const again = keptKeys([second])[0];
    expect(again).not.toBe(secondKey);
    expect(again).toEqual(secondKey);
  });

  it("keeps no secret that fails to decode, and signs with the kept key as with a fresh one", async () => {
    const secret = createSecret();
    const broken = `${secret.slice(0, -4)}*==`;
    expect(() => keptKeys([broken])).toThrow(/not valid base64/);
    expect(() => keptKeys([broken])).toThrow(/not valid base64/); // thrown again: nothing was kept for it
    const message = { id: "msg_1", timestamp: 1_700_000_000, body: '{"id":1}' };
    const kept = await signatureHeaderWith(nodeCrypto, { ...message, secrets: [secret] }, keptKeys);
    expect(await signatureHeaderWith(nodeCrypto, { ...message, secrets: [secret] }, keptKeys)).toBe(kept);
    expect(await signatureHeaderWith(nodeCrypto, { ...message, secrets: [secret] })).toBe(kept);
  });
});
