import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { implementations } from "../../test/support/crypto-implementations.js";
import { utf8Encode } from "../encoding.js";
import { createSigning } from "./create-signing.js";
import { createSecret, sign, signatureHeader } from "./index.js";

const STANDARD = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
};
const STANDARD_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

describe.each(implementations)("signing on $implementation crypto", (crypto) => {
  const signing = createSigning(crypto);

  it("reproduces the public Standard Webhooks vector from a string and from bytes", async () => {
    expect(await signing.sign(STANDARD)).toBe(STANDARD_SIGNATURE);
    expect(await signing.sign({ ...STANDARD, body: utf8Encode(STANDARD.body) })).toBe(STANDARD_SIGNATURE);
  });

  it("signs the body bytes exactly as given", async () => {
    const latin1 = new Uint8Array([0x7b, 0xe9, 0x7d]);
    const asUtf8 = await signing.sign({ ...STANDARD, body: "{é}" });
    expect(await signing.sign({ ...STANDARD, body: latin1 })).not.toBe(asUtf8);
    expect(await signing.sign({ ...STANDARD, body: `${STANDARD.body} ` })).not.toBe(STANDARD_SIGNATURE);
  });

  it("signs ids with dots, as the Standard Webhooks reference does", async () => {
    // Standard Webhooks reference: new Webhook(secret).sign("evt.2024.1", new Date(1614265330000), body)
    expect(await signing.sign({ ...STANDARD, id: "evt.2024.1" })).toBe(
      "v1,Aj903bp8vR1RBQG41Uu40n0Xbb2c1pMpRb8zH8LLi/s=",
    );
  });

  it("joins one signature per secret with spaces", async () => {
    const other = createSecret({ random: (n) => new Uint8Array(n).fill(9) });
    const header = await signing.signatureHeader({ ...STANDARD, secrets: [STANDARD.secret, other] });
    const second = await signing.sign({ ...STANDARD, secret: other });
    expect(header).toBe(`${STANDARD_SIGNATURE} ${second}`);
  });

  it.each([
    ["an empty id", { id: "" }, "malformed_id"],
    ["an id with a space", { id: "msg 1" }, "malformed_id"],
    ["an id with a control character", { id: "msg\u00011" }, "malformed_id"],
    ["an id over 256 characters", { id: "m".repeat(257) }, "malformed_id"],
    ["a fractional timestamp", { timestamp: 1614265330.5 }, "malformed_timestamp"],
    ["a negative timestamp", { timestamp: -1 }, "malformed_timestamp"],
    ["milliseconds beyond the safe range", { timestamp: 2 ** 53 }, "malformed_timestamp"],
    ["a bad secret", { secret: "whsec_short" }, "invalid_secret"],
  ])("refuses to sign %s", async (_, change, code) => {
    await expect(signing.sign({ ...STANDARD, ...change })).rejects.toMatchObject({ code });
  });

  it("refuses a signature header without secrets", async () => {
    await expect(signing.signatureHeader({ ...STANDARD, secrets: [] })).rejects.toMatchObject({
      code: "invalid_secret",
    });
  });
});

describe("sign (bound to #crypto)", () => {
  it("matches both implementations for any message", async () => {
    const [node, web] = implementations.map(createSigning);
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
        fc.nat(),
        fc.oneof(fc.string(), fc.uint8Array()),
        async (id, timestamp, body) => {
          const input = { secret: STANDARD.secret, id, timestamp, body };
          const expected = await sign(input);
          expect(await node?.sign(input)).toBe(expected);
          expect(await web?.sign(input)).toBe(expected);
        },
      ),
      { numRuns: 50 },
    );
    expect(await signatureHeader({ ...STANDARD, secrets: [STANDARD.secret] })).toBe(STANDARD_SIGNATURE);
  });
});
