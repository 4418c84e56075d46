import { describe, expect, it } from "vitest";
import { classifyResponse } from "./classify.js";

const NOW = Date.UTC(2025, 0, 1);
const respond = (status: number, headers: Record<string, string> = {}) =>
  new Response(status === 204 || status === 304 ? null : "x", { status, headers });

describe("classifyResponse", () => {
  it("maps 2xx to delivered and 410 to gone", () => {
    for (const status of [200, 201, 202, 204, 299])
      expect(classifyResponse(respond(status), NOW)).toEqual({ kind: "delivered" });
    expect(classifyResponse(respond(410), NOW).kind).toBe("gone");
  });

  it("retries any other status, ignoring Retry-After outside 429/502/503/504", () => {
    for (const status of [300, 400, 401, 403, 404, 408, 413, 422, 500, 501, 505, 599]) {
      const result = classifyResponse(respond(status, { "retry-after": "60" }), NOW);
      expect(result.kind).toBe("retry");
      expect(result.retryAfterMs).toBeUndefined();
      expect(result.error).toContain(String(status));
    }
  });

  it("honours Retry-After on 429/502/503/504", () => {
    for (const status of [429, 502, 503, 504]) {
      expect(classifyResponse(respond(status, { "retry-after": "60" }), NOW)).toMatchObject({
        kind: "retry",
        retryAfterMs: 60_000,
      });
      expect(classifyResponse(respond(status), NOW)).not.toHaveProperty("retryAfterMs");
    }
    const date = new Date(NOW + 90_000).toUTCString();
    expect(classifyResponse(respond(503, { "retry-after": date }), NOW).retryAfterMs).toBe(90_000);
  });

  it("retries redirects and says they are not followed", () => {
    const result = classifyResponse(respond(301, { location: "https://elsewhere.example/hook" }), NOW);
    expect(result.kind).toBe("retry");
    expect(result.error).toMatch(/301 to https:\/\/elsewhere\.example\/hook; redirects are not followed/);
    const withPassword = classifyResponse(
      respond(302, { location: "https://u:hunter2@elsewhere.example/" }),
      NOW,
    );
    expect(withPassword.error).toContain("302 to https://…@elsewhere.example/;");
    expect(withPassword.error).not.toContain("hunter2");
    const opaque = respond(200);
    Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
    Object.defineProperty(opaque, "status", { value: 0 });
    expect(classifyResponse(opaque, NOW)).toMatchObject({
      kind: "retry",
      error: expect.stringMatching(/redirects are not followed/),
    });
  });
});
