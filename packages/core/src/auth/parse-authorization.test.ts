import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAuthorization } from "./parse-authorization.js";

describe("parseAuthorization", () => {
  it.each([
    ["Bearer psk_abc", "psk_abc"],
    ["bearer psk_abc", "psk_abc"],
    ["BEARER psk_abc", "psk_abc"],
    ["Bearer   psk_abc  ", "psk_abc"],
    ["Bearer mF_9.B5f-4.1JqM", "mF_9.B5f-4.1JqM"],
    ["Bearer a+b/c~d==", "a+b/c~d=="],
  ])("reads %j", (header, token) => {
    expect(parseAuthorization(header)).toEqual({ ok: true, token });
  });

  it.each([null, undefined, "", "   "])("reports %j as missing", (header) => {
    const result = parseAuthorization(header);
    expect(result).toMatchObject({ ok: false, reason: "missing" });
  });

  it.each([
    ["another scheme", "Basic dXNlcjpwYXNz"],
    ["no scheme", "psk_secret123"],
    ["a scheme glued to the token", "Bearerpsk_secret123"],
  ])(
    "reports %s as missing (no bearer token: 401 without an error code, RFC 6750 §3), without echoing it",
    (_, header) => {
      const result = parseAuthorization(header);
      expect(result).toMatchObject({ ok: false, reason: "missing" });
      if (result.ok) return;
      expect(result.message).toContain("does not use the Bearer scheme");
      expect(result.message).not.toContain("secret");
      expect(result.message).not.toContain("dXNlcjpwYXNz");
    },
  );

  it.each([
    ["no token", "Bearer", "no token"],
    ["two credentials", "Bearer psk_secret123 psk_secret456", "more than one"],
    ["a comma", "Bearer psk_secret123,", "more than one"],
    ["two Authorization headers joined", "Bearer psk_secret123, Bearer psk_secret456", "more than one"],
    ["quotes", 'Bearer "psk_secret123"', "characters"],
    ["padding in the middle", "Bearer psk=secret123", "characters"],
    ["a tab separator", "Bearer\tpsk_secret123", "one space"],
    ["a line break inside", "Bearer psk_secret\n123", "characters"],
  ])("refuses %s as invalid_request without echoing the token", (_, header, fragment) => {
    const result = parseAuthorization(header);
    expect(result).toMatchObject({ ok: false, reason: "invalid_request" });
    if (result.ok) return;
    expect(result.message).toContain(fragment);
    expect(result.message).not.toContain("secret");
    expect(result.message).not.toContain("dXNlcjpwYXNz");
  });

  it("never throws, and any token it returns is one b64token without whitespace", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `Bearer ${s}`),
        ),
        (header) => {
          const result = parseAuthorization(header);
          if (result.ok) expect(result.token).toMatch(/^[A-Za-z0-9\-._~+/]+=*$/);
          else expect(result.message.length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it("returns exactly the token that was sent", () => {
    const b64token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]+=*$/);
    fc.assert(
      fc.property(b64token, fc.constantFrom("Bearer", "bearer", "bEaReR"), (token, scheme) => {
        expect(parseAuthorization(`${scheme} ${token}`)).toEqual({ ok: true, token });
      }),
    );
  });

  it("reads 'Bearer <…>' (its fast path) exactly as 'bearer <…>' (the full reading), whatever follows", () => {
    const tail = fc.oneof(
      fc.string(),
      fc.stringMatching(/^[A-Za-z0-9\-._~+/ =,\t]{0,12}$/),
      fc.stringMatching(/^[A-Za-z0-9+/]{1,8}={0,2}[ \t,]?$/),
    );
    fc.assert(
      fc.property(tail, (rest) => {
        expect(parseAuthorization(`Bearer ${rest}`)).toEqual(parseAuthorization(`bearer ${rest}`));
      }),
      { numRuns: 2000 },
    );
  });
});
