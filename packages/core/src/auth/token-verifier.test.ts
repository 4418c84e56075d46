import { describe, expect, it } from "vitest";
import { implementations } from "../../test/support/crypto-implementations.js";
import { sameText } from "../constant-time.js";
import type { CryptoProvider } from "../crypto/types.js";
import { PlantStoreError } from "../errors.js";
import { createAuth } from "./create-auth.js";
import { createTokenVerifier, hashToken } from "./index.js";
import { generateToken } from "./token-format.js";

const tokenA = generateToken((n) => new Uint8Array(n).fill(1));
const tokenB = generateToken((n) => new Uint8Array(n).fill(2));

describe.each(implementations)("token verifier on $implementation crypto", (crypto) => {
  const auth = createAuth(crypto);

  it("accepts clear and hashed tokens, several at once, and nothing else", async () => {
    const verifier = auth.createTokenVerifier([tokenA, await auth.hashToken(tokenB), "legacy-token.v1"]);
    expect(await verifier.verify(tokenA)).toBe(true);
    expect(await verifier.verify(tokenB)).toBe(true);
    expect(await verifier.verify("legacy-token.v1")).toBe(true);
    expect(await verifier.verify("legacy-token.v2")).toBe(false);
    expect(await verifier.verify(generateToken((n) => new Uint8Array(n).fill(3)))).toBe(false);
    expect(await verifier.verify("")).toBe(false);
  });

  it("does not accept the hash itself as a token", async () => {
    const hash = await auth.hashToken(tokenA);
    expect(await auth.createTokenVerifier([hash]).verify(hash)).toBe(false);
  });

  it("accepts upper-case hex in a configured hash", async () => {
    const hash = await auth.hashToken(tokenA);
    const verifier = auth.createTokenVerifier([`sha256:${hash.slice(7).toUpperCase()}`]);
    expect(await verifier.verify(tokenA)).toBe(true);
  });

  it("hashes to sha256:<64 hex> (the SHA-256 of the UTF-8 token)", async () => {
    expect(await auth.hashToken("abc")).toBe(
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("token verifier", () => {
  it("rejects a psk_ token with a broken checksum by comparing it, with no hash when only clear tokens are set", async () => {
    const calls = spyCrypto(implementations[0] as CryptoProvider);
    const verifier = createAuth(calls.crypto).createTokenVerifier([tokenA]);
    const typo = `${tokenA.slice(0, 10)}${tokenA[10] === "a" ? "b" : "a"}${tokenA.slice(11)}`;
    expect(await verifier.verify(typo)).toBe(false);
    expect(await verifier.verify(tokenA)).toBe(true);
    expect(calls.sha256).toBe(0);
    expect(calls.compare).toBe(0);
  });

  it("hashes the presented token once when a hash is configured and compares it with every hash, even after a match", async () => {
    const calls = spyCrypto(implementations[0] as CryptoProvider);
    const hashB = await hashToken(tokenB);
    const hashC = await hashToken("third");
    const verifier = createAuth(calls.crypto).createTokenVerifier([tokenA, hashB, hashC]);
    expect(await verifier.verify(tokenB)).toBe(true);
    expect(calls.sha256).toBe(1);
    expect(calls.compare).toBe(2);
    expect(await verifier.verify(tokenA)).toBe(true);
    expect(await verifier.verify("third")).toBe(true);
    expect(await verifier.verify("fourth")).toBe(false);
    expect(calls.sha256).toBe(4);
    expect(calls.compare).toBe(8);
  });

  it("compares clear tokens exactly: a prefix, an extension, one changed character or case are refused", async () => {
    const verifier = createTokenVerifier([tokenA, "legacy-token.v1"]);
    for (const presented of [
      tokenA.slice(0, -1),
      `${tokenA}x`,
      `x${tokenA}`,
      tokenA.toUpperCase(),
      `${tokenA.slice(0, -1)}${tokenA.endsWith("a") ? "b" : "a"}`,
      "legacy-token.v",
      "legacy-token.v1\u0000",
      "légacy-token.v1",
    ]) {
      expect(await verifier.verify(presented), presented).toBe(false);
    }
    expect(await verifier.verify("legacy-token.v1")).toBe(true);
  });

  it("sameText is 1 only for the same text", () => {
    expect(sameText("abc", "abc")).toBe(1);
    expect(sameText("", "")).toBe(1);
    for (const [a, b] of [
      ["abc", "abd"],
      ["abc", "ab"],
      ["ab", "abc"],
      ["", "a"],
      ["a", ""],
      ["xbc", "abc"],
      ["ab\u0000", "ab"],
      ["\u0161", "a"],
    ] as const) {
      expect(sameText(a, b), `${a} vs ${b}`).toBe(0);
    }
  });

  it("binds #crypto in the package exports", async () => {
    const verifier = createTokenVerifier([await hashToken(tokenA)]);
    expect(await verifier.verify(tokenA)).toBe(true);
    expect(await verifier.verify(tokenB)).toBe(false);
  });

  it.each([
    ["an empty list", [], "No accepted bearer tokens"],
    ["an empty entry", [tokenA, ""], "Accepted token 2 of 2 cannot work: it is empty"],
    ["a short hash", [`sha256:${"ab".repeat(31)}`], "64 hex characters"],
    ["a non-hex hash", [`sha256:${"zz".repeat(32)}`], "64 hex characters"],
    ["a token with a line break", [`${tokenA}\n`], "trailing line break"],
    ["a token with a space", ["my secret"], "characters a bearer token cannot carry"],
    ["a damaged psk_ token", [tokenA.slice(0, 39)], "looks like a psk_ token but is damaged"],
  ])("refuses %s at creation without revealing it", (_, accepted, fragment) => {
    let error: unknown;
    try {
      createTokenVerifier(accepted);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PlantStoreError);
    const { code, message } = error as PlantStoreError;
    expect(code).toBe("invalid_token_config");
    expect(message).toContain(fragment);
    for (const entry of accepted) if (entry.length > 6) expect(message).not.toContain(entry.slice(4, 20));
    expect(message).not.toContain("ab".repeat(8));
  });

  it("refuses to hash a token that could never be presented", async () => {
    await expect(hashToken("")).rejects.toMatchObject({ code: "invalid_token" });
    await expect(hashToken("with space")).rejects.toMatchObject({ code: "invalid_token" });
    await expect(hashToken(tokenA.slice(0, 39))).rejects.toThrow(/damaged/);
  });
});

function spyCrypto(base: CryptoProvider) {
  const calls = {
    sha256: 0,
    compare: 0,
    crypto: {
      ...base,
      sha256: (data: Uint8Array) => {
        calls.sha256++;
        return base.sha256(data);
      },
      ...(base.sha256Sync && {
        sha256Sync: (data: Uint8Array | string) => {
          calls.sha256++;
          return base.sha256Sync!(data);
        },
      }),
      timingSafeEqual: (a: Uint8Array, b: Uint8Array) => {
        calls.compare++;
        return base.timingSafeEqual(a, b);
      },
    } satisfies CryptoProvider,
  };
  return calls;
}
