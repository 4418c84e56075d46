import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bearerChallenge } from "./bearer-challenge.js";

describe("bearerChallenge", () => {
  it("defaults to the plant-store realm without an error", () => {
    expect(bearerChallenge()).toBe('Bearer realm="plant-store"');
  });

  it("adds the error code and description", () => {
    expect(
      bearerChallenge({ realm: "ops", error: "invalid_token", description: "The token is not accepted" }),
    ).toBe('Bearer realm="ops", error="invalid_token", error_description="The token is not accepted"');
    expect(bearerChallenge({ error: "invalid_request" })).toBe(
      'Bearer realm="plant-store", error="invalid_request"',
    );
  });

  it("escapes quotes and backslashes", () => {
    expect(bearerChallenge({ realm: 'a"b', description: 'say "hi" \\o/' })).toBe(
      'Bearer realm="a\\"b", error_description="say \\"hi\\" \\\\o/"',
    );
  });

  it("cannot be used to inject header lines or non-ASCII", () => {
    expect(bearerChallenge({ description: "bad\r\nSet-Cookie: x=1 é" })).toBe(
      'Bearer realm="plant-store", error_description="bad??Set-Cookie: x=1 ?"',
    );
    fc.assert(
      fc.property(fc.string(), fc.string(), (realm, description) => {
        const challenge = bearerChallenge({ realm, description, error: "invalid_token" });
        expect(challenge).toMatch(/^[\x20-\x7e]+$/);
        // Every parameter value is one quoted string: two unescaped quotes per parameter, none stray.
        expect(challenge.replace(/\\./g, "").match(/"/g)).toHaveLength(description ? 6 : 4);
      }),
    );
  });
});
