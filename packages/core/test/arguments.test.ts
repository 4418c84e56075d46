import { describe, expect, it } from "vitest";
import { checkTokenFormat, createTokenVerifier, hashToken } from "../src/auth/index.js";
import { deliver } from "../src/delivery/deliver.js";
import { PlantStoreError } from "../src/errors.js";
import { parseNewPlant } from "../src/events/index.js";
import { createSigning } from "../src/signing/create-signing.js";
import { sign, signatureHeader, verify } from "../src/signing/index.js";
import { SECRET, TOKEN } from "./helpers.js";
import { implementations } from "./support/crypto-implementations.js";

// Arguments of the wrong type, as plain JavaScript hands them over: a PlantStoreError with a stable code and a
// message saying what to pass — never a RangeError or Node's ERR_INVALID_ARG_TYPE, never the secret.
const BAD_BODIES: [string, unknown][] = [
  ["a number", 123],
  ["an object", {}],
  ["an ArrayBuffer", new ArrayBuffer(3)],
  ["a DataView", new DataView(new ArrayBuffer(3))],
  ["undefined", undefined],
  ["null", null],
];
const message = { id: "msg_1", timestamp: 1_700_000_000 };
const anyInput = <T>(value: unknown) => value as T;

async function rejection(promise: () => Promise<unknown>): Promise<PlantStoreError> {
  const error = await Promise.resolve()
    .then(promise)
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  if (error instanceof PlantStoreError) return error;
  throw new Error(`expected a PlantStoreError, got ${String(error)}`);
}

describe.each(implementations)("bodies of the wrong type on $implementation crypto", (crypto) => {
  const signing = createSigning(crypto);

  it.each(BAD_BODIES)("%s: sign, signatureHeader and verify throw invalid_body", async (_, body) => {
    const errors = [
      await rejection(() => signing.sign(anyInput({ ...message, secret: SECRET, body }))),
      await rejection(() => signing.signatureHeader(anyInput({ ...message, secrets: [SECRET], body }))),
      await rejection(() =>
        signing.verify(
          anyInput({ secrets: [SECRET], id: "msg_1", timestamp: "1700000000", signature: "v1,x", body }),
        ),
      ),
    ];
    for (const [index, error] of errors.entries()) {
      expect(error.code).toBe("invalid_body");
      expect(error.message).toMatch(/^(sign|signatureHeader|verify): body must be a string or a Uint8Array/);
      expect(error.message).toContain(["sign:", "signatureHeader:", "verify:"][index]);
      expect(error.message).not.toContain(SECRET.slice(6));
    }
  });

  it("takes a Buffer like any Uint8Array", async () => {
    const body = '{"id":1,"name":"Fern"}';
    const expected = await signing.sign({ ...message, secret: SECRET, body });
    expect(await signing.sign({ ...message, secret: SECRET, body: Buffer.from(body) })).toBe(expected);
  });
});

describe("other arguments of the wrong type", () => {
  it("the bound sign/signatureHeader/verify check bodies too", async () => {
    expect((await rejection(() => sign(anyInput({ ...message, secret: SECRET, body: 1 })))).code).toBe(
      "invalid_body",
    );
    expect(
      (await rejection(() => signatureHeader(anyInput({ ...message, secrets: [SECRET], body: {} })))).code,
    ).toBe("invalid_body");
    const input = { secrets: [SECRET], id: "msg_1", timestamp: "1700000000", signature: "v1,x" };
    expect((await rejection(() => verify(anyInput(input)))).code).toBe("invalid_body");
  });

  it("sign refuses an id that is not a string with malformed_id", async () => {
    const error = await rejection(() => sign(anyInput({ ...message, id: 123, secret: SECRET, body: "{}" })));
    expect(error).toMatchObject({
      code: "malformed_id",
      message: expect.stringContaining("must be a string"),
    });
  });

  it.each([
    ["id", 123],
    ["signature", ["v1,x"]],
  ])("verify refuses a %s header that is not a string with invalid_argument", async (name, value) => {
    const input = {
      secrets: [SECRET],
      id: "msg_1",
      timestamp: "1",
      signature: "v1,x",
      body: "{}",
      [name]: value,
    };
    const error = await rejection(() => verify(anyInput(input)));
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toMatch(
      new RegExp(`^verify: ${name} must be the webhook-${name} header as a string`),
    );
  });

  it("parseNewPlant throws invalid_body for a body that is neither text nor bytes", () => {
    for (const [, body] of BAD_BODIES) {
      expect(() => parseNewPlant(anyInput(body))).toThrow(
        expect.objectContaining({ code: "invalid_body", message: expect.stringContaining("parseNewPlant:") }),
      );
    }
  });

  it("tokens that are not strings are refused, not crashed on", async () => {
    expect(checkTokenFormat(anyInput(123))).toEqual({
      ok: false,
      reason: expect.stringContaining("not a string"),
    });
    expect(checkTokenFormat(anyInput(undefined))).toMatchObject({ ok: false });
    expect((await rejection(() => hashToken(anyInput(123)))).code).toBe("invalid_token");
    expect(() => createTokenVerifier(anyInput([123]))).toThrow(
      expect.objectContaining({
        code: "invalid_token_config",
        message: expect.stringContaining("not a string"),
      }),
    );
  });

  it("deliver turns a target or message of the wrong type into a failed outcome", async () => {
    const sent: unknown[] = [];
    const transport = async (request: unknown) => {
      sent.push(request);
      return { status: 200, headers: { get: () => null }, readBody: async () => "" };
    };
    const target = { url: "https://receiver.example/plant/webhook", token: TOKEN, secrets: [SECRET] };
    const cases: [Record<string, unknown>, Record<string, unknown>, RegExp][] = [
      [{ token: 123 }, {}, /token is empty or not a valid bearer token/],
      [{ secrets: undefined }, {}, /secrets must be an array/],
      [{ secrets: SECRET }, {}, /secrets must be an array/],
      [{}, { id: 123 }, /message id cannot be sent as webhook-id: it must be a string of 1 to 256/],
      [{}, { body: 123 }, /message body must be a string or a Uint8Array/],
      [{}, { body: { id: 1, name: "Fern" } }, /message body must be a string or a Uint8Array/],
    ];
    for (const [targetChange, messageChange, pattern] of cases) {
      const outcome = await deliver(
        anyInput({ ...target, ...targetChange }),
        anyInput({ id: "msg_1", body: "{}", ...messageChange }),
        { transport },
      );
      expect(outcome).toMatchObject({ kind: "failed", error: expect.stringMatching(pattern) });
      expect(outcome.error).not.toContain(SECRET.slice(6));
    }
    expect(sent).toHaveLength(0);
  });
});
