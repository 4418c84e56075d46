import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, REDACTED_PATHS } from "../src/index.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe("createLogger", () => {
  it("writes one JSON line per call, with the app name and the fields given", async () => {
    const { lines, stream } = capture();
    const logger = createLogger("plant-store-test", "info", stream);
    logger.info({ webhookId: "msg_1", status: 200 }, "webhook");
    logger.debug({ hidden: true }, "below the level");
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      app: "plant-store-test",
      webhookId: "msg_1",
      status: 200,
      msg: "webhook",
    });
  });

  it("redacts every credential path it names, at the top level and nested", async () => {
    const { lines, stream } = capture();
    const logger = createLogger("plant-store-test", "info", stream);
    const secret = "whsec_c2VjcmV0LXRoYXQtbXVzdC1ub3QtbGVhaw==";
    const token = "psk_must_not_leak";
    logger.info({
      authorization: `Bearer ${token}`,
      token,
      tokens: [token],
      secret,
      secrets: [secret],
      adminToken: token,
      adminTokens: [token],
      encryptionKey: secret,
      headers: { authorization: `Bearer ${token}`, "webhook-id": "msg_2" },
      req: { headers: { authorization: `Bearer ${token}` } },
      request: { headers: { authorization: `Bearer ${token}` } },
      subscription: { id: "sub_1", token, secret },
    });
    await new Promise((resolve) => setImmediate(resolve));
    const text = JSON.stringify(lines);
    expect(text).not.toContain(token);
    expect(text).not.toContain(secret);
    expect(lines[0]?.headers).toEqual({ authorization: "[redacted]", "webhook-id": "msg_2" });
    expect(lines[0]?.subscription).toEqual({ id: "sub_1", token: "[redacted]", secret: "[redacted]" });
    expect(text.split("[redacted]").length - 1).toBe(REDACTED_PATHS.length);
  });
});
