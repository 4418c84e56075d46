import { describe, expect, it } from "vitest";
import { createBearerCheck } from "./bearer-check.js";
import { createToken, createTokenVerifier } from "./index.js";

const GOOD = createToken();
const check = createBearerCheck({
  verifier: createTokenVerifier([GOOD]),
  realm: "plant-store-admin",
  missing: "Missing admin bearer token.",
  rejected: "The admin token is not accepted.",
});

describe("createBearerCheck", () => {
  it("passes an accepted token", async () => {
    expect(await check(`Bearer ${GOOD}`)).toEqual({ ok: true });
  });

  it("401 with a bare challenge when no bearer token is sent (also another scheme)", async () => {
    for (const header of [undefined, null, "", "Basic dXNlcg=="]) {
      expect(await check(header)).toEqual({
        ok: false,
        status: 401,
        message: "Missing admin bearer token.",
        headers: { "www-authenticate": 'Bearer realm="plant-store-admin"' },
      });
    }
  });

  it("400 invalid_request for a malformed Bearer header; the message never holds the token", async () => {
    const outcome = await check("Bearer two secret-ish");
    expect(outcome).toMatchObject({
      ok: false,
      status: 400,
      message: expect.stringMatching(/^Malformed Authorization header: /),
      headers: { "www-authenticate": 'Bearer realm="plant-store-admin", error="invalid_request"' },
    });
    expect(JSON.stringify(outcome)).not.toContain("secret-ish");
  });

  it("401 invalid_token for a token not accepted", async () => {
    expect(await check(`Bearer ${createToken()}`)).toEqual({
      ok: false,
      status: 401,
      message: "The admin token is not accepted.",
      headers: { "www-authenticate": 'Bearer realm="plant-store-admin", error="invalid_token"' },
    });
  });
});
