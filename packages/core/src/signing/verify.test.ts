import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { implementations } from "../../test/support/crypto-implementations.js";
import type { CryptoProvider } from "../crypto/types.js";
import { toBase64 } from "../encoding.js";
import { createSigning } from "./create-signing.js";
import { verify } from "./index.js";
import type { VerifyInput } from "./verify.js";

const secret = (fill: number) => `whsec_${toBase64(new Uint8Array(32).fill(fill))}`;
const OLD = secret(1);
const NEW = secret(2);
const OTHER = secret(3);
const T = 1_700_000_000;
const message = { id: "msg_01HZX3", timestamp: T, body: '{"id":1,"name":"Fern"}' };

describe.each(implementations)("verify on $implementation crypto", (crypto) => {
  const signing = createSigning(crypto);
  const signed = async (overrides: Partial<VerifyInput> = {}, secrets = [OLD]): Promise<VerifyInput> => ({
    secrets: [OLD],
    id: message.id,
    timestamp: String(T),
    signature: await signing.signatureHeader({ ...message, secrets }),
    body: message.body,
    now: () => T * 1000,
    ...overrides,
  });

  it("accepts a valid signature and returns the timestamp", async () => {
    expect(await signing.verify(await signed())).toEqual({ ok: true, timestamp: T });
    const bytes = new TextEncoder().encode(message.body);
    expect(await signing.verify(await signed({ body: bytes }))).toEqual({ ok: true, timestamp: T });
  });

  it("accepts during rotation: several signatures or several secrets", async () => {
    expect(await signing.verify(await signed({ secrets: [NEW] }, [OLD, NEW]))).toMatchObject({ ok: true });
    expect(await signing.verify(await signed({ secrets: [OLD, NEW] }, [NEW]))).toMatchObject({ ok: true });
    expect(await signing.verify(await signed({ secrets: [OTHER, OLD] }, [NEW, OLD]))).toMatchObject({
      ok: true,
    });
  });

  it("ignores other signature versions and extra spaces", async () => {
    const input = await signed();
    const signature = `v1a,c2lnbmVk  v2,xyz ${input.signature} `;
    expect(await signing.verify({ ...input, signature })).toMatchObject({ ok: true });
    expect(await signing.verify({ ...input, signature: "v1a,c2lnbmVk v2,xyz" })).toMatchObject({
      ok: false,
      code: "no_matching_signature",
      message: expect.stringContaining("none of version v1"),
    });
  });

  it("refuses the right MAC in a non-canonical base64 text, and a v1 entry cut short or lengthened", async () => {
    const input = await signed();
    const mac = input.signature!.slice(3); // 44 characters, one '=': the last data character carries 2 unused bits
    const last = mac.charAt(42);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const sibling = alphabet.charAt(alphabet.indexOf(last) ^ 1); // the same 32 bytes, a non-zero unused bit
    for (const signature of [
      `v1,${mac.slice(0, 42)}${sibling}=`,
      `v1,${mac.slice(0, -1)}`,
      `v1,${mac}=`,
      `v1,${mac} x`,
    ]) {
      const verdict = await signing.verify({ ...input, signature });
      if (signature.endsWith(" x")) expect(verdict, signature).toMatchObject({ ok: true });
      else expect(verdict, signature).toMatchObject({ ok: false, code: "malformed_signature" });
    }
  });

  it("refuses a wrong secret or a changed body", async () => {
    expect(await signing.verify(await signed({ secrets: [OTHER] }))).toMatchObject({
      ok: false,
      code: "no_matching_signature",
    });
    expect(await signing.verify(await signed({ body: `${message.body}\n` }))).toMatchObject({
      ok: false,
      code: "no_matching_signature",
    });
  });

  it("holds the timestamp within the tolerance both ways, boundaries included", async () => {
    const at = async (nowSeconds: number, toleranceSeconds?: number) =>
      signing.verify(await signed({ now: () => nowSeconds * 1000 + 999, toleranceSeconds }));
    expect(await at(T + 300)).toMatchObject({ ok: true });
    expect(await at(T + 301)).toMatchObject({ ok: false, code: "timestamp_too_old" });
    expect(await at(T - 300)).toMatchObject({ ok: true });
    expect(await at(T - 301)).toMatchObject({ ok: false, code: "timestamp_in_future" });
    expect(await at(T + 10, 5)).toMatchObject({ ok: false, code: "timestamp_too_old" });
    expect(await at(T, 0)).toMatchObject({ ok: true });
    const stale = await at(T + 3600);
    expect(stale).toMatchObject({ message: expect.stringMatching(/3600 s in the past.*300 s tolerance/) });
  });

  it.each([
    [{ id: undefined }, "Missing webhook-id."],
    [{ id: "", timestamp: null }, "Missing webhook-id, webhook-timestamp."],
    [{ signature: "" }, "Missing webhook-signature."],
  ])("reports missing headers by name (%j)", async (overrides, start) => {
    const result = await signing.verify(await signed(overrides));
    expect(result).toMatchObject({
      ok: false,
      code: "missing_headers",
      message: expect.stringMatching(start),
    });
  });

  it.each([
    ["id", { id: "msg 1" }, "malformed_id", "visible ASCII"],
    ["id", { id: "m".repeat(257) }, "malformed_id", "1 to 256"],
    ["timestamp", { timestamp: `${T}.0` }, "malformed_timestamp", "digits only"],
    ["timestamp", { timestamp: "-1" }, "malformed_timestamp", "digits only"],
    ["timestamp", { timestamp: "1.7e9" }, "malformed_timestamp", "digits only"],
    ["timestamp", { timestamp: ` ${T}` }, "malformed_timestamp", "digits only"],
    ["timestamp", { timestamp: "9".repeat(17) }, "malformed_timestamp", "digits only"],
    ["signature", { signature: "   " }, "malformed_signature", "no signature"],
    [
      "signature",
      { signature: "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" },
      "malformed_signature",
      "version",
    ],
    [
      "signature",
      { signature: ",g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" },
      "malformed_signature",
      "version",
    ],
    ["signature", { signature: "v1,not*base64" }, "malformed_signature", "32-byte"],
    ["signature", { signature: "v1," }, "malformed_signature", "32-byte"],
    ["signature", { signature: "v1,AAAAAAAAAAAAAAAAAAAAAA==" }, "malformed_signature", "32-byte"],
  ])("refuses a malformed %s (%j)", async (_, overrides, code, fragment) => {
    const result = await signing.verify(await signed(overrides));
    expect(result).toMatchObject({ ok: false, code, message: expect.stringContaining(fragment) });
  });

  it("skips malformed entries next to a valid one, as the reference library does", async () => {
    const input = await signed();
    for (const signature of [
      `v1,notbase64!! ${input.signature}`,
      `${input.signature} v1,`,
      `${input.signature} v1,broken`,
      `nocomma ,x v1,AAAAAAAAAAAAAAAAAAAAAA== ${input.signature}`,
    ]) {
      expect(await signing.verify({ ...input, signature })).toEqual({ ok: true, timestamp: T });
    }
  });

  it("is malformed only when no entry is well-formed; otherwise no match is a 401 code", async () => {
    const input = await signed();
    expect(await signing.verify({ ...input, signature: "v1,broken v1, nocomma" })).toMatchObject({
      ok: false,
      code: "malformed_signature",
      message: expect.stringContaining("32-byte"),
    });
    const wrong = await signing.signatureHeader({ ...message, secrets: [OTHER] });
    expect(await signing.verify({ ...input, signature: `v1,broken ${wrong}` })).toMatchObject({
      ok: false,
      code: "no_matching_signature",
      message: expect.stringContaining("1 malformed entry was skipped"),
    });
    expect(await signing.verify({ ...input, signature: "v1a,c2lnbmVk v1,broken v1," })).toMatchObject({
      ok: false,
      code: "no_matching_signature",
      message: expect.stringContaining("2 malformed entries were skipped"),
    });
  });

  it("throws only for bad configuration, never echoing a secret", async () => {
    await expect(signing.verify(await signed({ secrets: [] }))).rejects.toMatchObject({
      code: "invalid_secret",
    });
    const bad = "whsec_MfKQ9r8GKYqrTwjUPD8I";
    const error = await signing.verify(await signed({ secrets: [OLD, bad] })).catch((caught) => caught);
    expect(error).toMatchObject({ code: "invalid_secret" });
    expect(error.message).not.toContain("MfKQ9r8GKYqrTwjUPD8I");
    await expect(signing.verify(await signed({ toleranceSeconds: -1 }))).rejects.toMatchObject({
      code: "invalid_option",
    });
  });

  it("never mentions a secret in a result message", async () => {
    for (const overrides of [{ secrets: [OTHER] }, { now: () => 0 }, { id: "a.b" }, { signature: "v1,x" }]) {
      const result = await signing.verify(await signed(overrides));
      expect(result.ok).toBe(false);
      if (!result.ok) for (const s of [OLD, OTHER]) expect(result.message).not.toContain(s.slice(6, 20));
    }
  });

  it("round-trips any message within the tolerance and refuses any changed body", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: -300, max: 300 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.nat(),
        async (id, timestamp, skew, body, flip) => {
          const header = await signing.signatureHeader({ secrets: [NEW, OLD], id, timestamp, body });
          const input = {
            secrets: [OLD],
            id,
            timestamp: String(timestamp),
            signature: header,
            body,
            now: () => (timestamp + skew) * 1000,
          };
          expect(await signing.verify(input)).toEqual({ ok: true, timestamp });
          const changed = body.length === 0 ? new Uint8Array([0]) : body.slice();
          if (body.length > 0) changed[flip % body.length] = (changed[flip % body.length] ?? 0) ^ 1;
          expect(await signing.verify({ ...input, body: changed })).toMatchObject({
            code: "no_matching_signature",
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("computes every secret's HMAC and compares it with every signature, even after a match", async () => {
    const counted = countingCrypto(crypto);
    const counting = createSigning(counted.crypto);
    const input = await signed({ secrets: [OLD, NEW, OTHER] }, [OLD, NEW]);
    expect(await counting.verify(input)).toMatchObject({ ok: true });
    expect(counted.hmac).toBe(3);
    // node:crypto compares the base64 texts (sameText, constant time); WebCrypto the bytes.
    expect(counted.compare).toBe(crypto.hmacSha256Base64Sync ? 0 : 3 * 2);
  });

  it("computes each secret's HMAC once for a forged signature of the right shape, and refuses it", async () => {
    const counted = countingCrypto(crypto);
    const counting = createSigning(counted.crypto);
    const input = await signed({ secrets: [OLD, NEW] }, [OTHER]);
    expect(await counting.verify(input)).toMatchObject({ ok: false, code: "no_matching_signature" });
    expect(counted.hmac).toBe(2);
  });
});

describe("verify (bound to #crypto)", () => {
  it("defaults to Date.now and a 300 s tolerance", async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const [signing] = implementations.map(createSigning);
    const at = async (timestamp: number) => ({
      secrets: [OLD],
      id: message.id,
      timestamp: String(timestamp),
      signature: (await signing?.sign({ ...message, timestamp, secret: OLD })) ?? "",
      body: message.body,
    });
    expect(await verify(await at(nowSeconds))).toMatchObject({ ok: true });
    expect(await verify(await at(nowSeconds - 400))).toMatchObject({ code: "timestamp_too_old" });
    expect(await verify(await at(nowSeconds + 400))).toMatchObject({ code: "timestamp_in_future" });
  });
});

function countingCrypto(base: CryptoProvider) {
  const counts = {
    hmac: 0,
    compare: 0,
    crypto: {
      ...base,
      hmacSha256: (key: Uint8Array, data: Uint8Array) => {
        counts.hmac++;
        return base.hmacSha256(key, data);
      },
      ...(base.hmacSha256Base64Sync && {
        hmacSha256Base64Sync: (key: Uint8Array, head: string, body: Uint8Array | string) => {
          counts.hmac++;
          return base.hmacSha256Base64Sync!(key, head, body);
        },
      }),
      timingSafeEqual: (a: Uint8Array, b: Uint8Array) => {
        counts.compare++;
        return base.timingSafeEqual(a, b);
      },
    } satisfies CryptoProvider,
  };
  return counts;
}
