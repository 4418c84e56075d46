// The answers node:http would write itself, probed over raw sockets against either app (not published): each must
// be the contract's `{ error, message }` JSON.
import { expect, it } from "vitest";
import { rawExchange } from "./raw-http.js";

/** Registers the probes against the server at `base()` (a GET path it serves). */
export function nodeAnswerProbes(base: () => string, path = "/healthz"): void {
  const error = (status: number, message: RegExp) => ({
    error: status,
    message: expect.stringMatching(message),
  });

  it("HTTP/1.1 without Host: 400 as JSON (RFC 9112 §3.2), not node's empty 400", async () => {
    const answer = await rawExchange(base(), `GET ${path} HTTP/1.1\r\nconnection: close\r\n\r\n`);
    expect(answer.raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.raw).toMatch(/content-type: application\/json/i);
    expect(answer.json).toEqual(error(400, /no Host header/));
    // HTTP/1.0 needs none.
    const old = await rawExchange(base(), `GET ${path} HTTP/1.0\r\n\r\n`);
    expect(old.status).toBe(200);
  });

  it("two Host headers: 400 as JSON", async () => {
    const answer = await rawExchange(
      base(),
      `GET ${path} HTTP/1.1\r\nHost: a\r\nHost: b\r\nconnection: close\r\n\r\n`,
    );
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual(error(400, /more than one Host/));
  });

  it("an Expect other than 100-continue: 417 as JSON", async () => {
    const answer = await rawExchange(
      base(),
      `GET ${path} HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nconnection: close\r\n\r\n`,
    );
    expect(answer.status).toBe(417);
    expect(answer.json).toEqual(error(417, /200-ok cannot be met/));
  });

  it("CONNECT: 405 as JSON instead of a closed connection", async () => {
    const answer = await rawExchange(
      base(),
      "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    );
    expect(answer.status).toBe(405);
    expect(answer.json).toEqual(error(405, /not a proxy/));
  });
}
