import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeAnswerProbes } from "../../../test-support/node-answers.js";
import { until } from "../../../test-support/processes.js";
import { keepWriting } from "../../../test-support/raw-http.js";
import { createReceiver } from "../src/index.js";
import { cleanup, post, type Running, SECRET, signedHeaders, startReceiver, TOKEN } from "./support.js";

const PLANT = '{"id":1,"name":"Monstera deliciosa","tag":"tropical"}';
let receiver: Running;
beforeAll(async () => {
  receiver = await startReceiver([
    "--token",
    TOKEN,
    "--secret",
    SECRET,
    "--db",
    ":memory:",
    "--max-body",
    "512",
  ]);
});
afterAll(async () => {
  receiver.child.kill("SIGTERM");
  await receiver.exited;
  cleanup();
});

/** Sends raw bytes over a socket (optionally in timed parts) and returns everything the server answered. */
async function raw(url: string, ...parts: (string | number)[]): Promise<string> {
  const socket = connect(Number(new URL(url).port), "127.0.0.1");
  let answer = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk) => {
    answer += chunk;
  });
  const closed = new Promise((resolve) => socket.on("close", resolve));
  for (const part of parts) {
    if (typeof part === "number") await new Promise((r) => setTimeout(r, part));
    else if (!socket.destroyed) socket.write(part);
  }
  await closed;
  return answer;
}

function jsonBody(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
}

async function request(body: string, extra: Record<string, string> = {}, target = "/plant/webhook") {
  const headers = { ...(await signedHeaders(body)), ...extra };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return [`POST ${target} HTTP/1.1`, "host: x", ...lines, "connection: close", "", ""].join("\r\n");
}

describe("HTTP edges, over raw sockets", () => {
  it("400 with a JSON body for a request node:http cannot parse (not node's empty 400)", async () => {
    const answer = await raw(
      receiver.url,
      "POST /plant/webhook HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(jsonBody(answer)).toEqual({ error: 400, message: expect.stringContaining("not valid HTTP/1.1") });
    const framing = await raw(
      receiver.url,
      "POST /plant/webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    );
    expect(jsonBody(framing)).toMatchObject({ error: 400 });
  });

  it("a malformed request pipelined after a good one: the good one's 200 first, then the 400 (RFC 9112 §9.3.2)", async () => {
    const body = '{"id":77,"name":"Pipelined fern"}';
    const first = (await request(body, { "content-length": String(body.length) })).replace(
      "connection: close\r\n",
      "",
    );
    const answer = await raw(receiver.url, `${first}${body}BOGUS\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nHTTP\/1\.1 400 Bad Request\r\n/);
    expect(jsonBody(answer.slice(answer.indexOf("HTTP/1.1 400")))).toEqual({
      error: 400,
      message: expect.stringContaining("not valid HTTP/1.1"),
    });
  });

  it("431 with a JSON body for oversized headers", async () => {
    const answer = await raw(
      receiver.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonBody(answer)).toEqual({ error: 431, message: expect.any(String) });
  });

  it("accepts an absolute-form request target (RFC 9112 §3.2.2)", async () => {
    const answer = await raw(
      receiver.url,
      `${await request(PLANT, { "content-length": String(PLANT.length) }, `${receiver.url}/plant/webhook`)}${PLANT}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("Expect: 100-continue: refused on its headers without inviting the body, else 100 then 200", async () => {
    const refused = await raw(
      receiver.url,
      await request(PLANT, { "content-length": "5000000", expect: "100-continue" }),
    );
    expect(refused).not.toContain("100 Continue");
    expect(refused).toMatch(/^HTTP\/1\.1 413 /);
    const body = '{"id":2,"name":"Fern"}';
    const accepted = await raw(
      receiver.url,
      await request(body, { "content-length": String(body.length), expect: "100-continue" }),
      300,
      body,
    );
    expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it("415 for a compressed body, and a WWW-Authenticate challenge on a signature 401", async () => {
    const gzip = await post(receiver.url, PLANT, {
      ...(await signedHeaders(PLANT)),
      "content-encoding": "gzip",
    });
    expect(gzip.status).toBe(415);
    const stale = await fetch(`${receiver.url}/plant/webhook`, {
      method: "POST",
      body: PLANT,
      headers: await signedHeaders(PLANT, { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
    });
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toBe('Bearer realm="plant-store"');
  });

  it("/readyz answers 503 naming only the code while the disk runs low; the log says where", async () => {
    const dir = mkdtempSync(join(tmpdir(), "receiver-disk-"));
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    const own = await createReceiver({
      tokens: [TOKEN],
      store: { url: join(dir, "receiver.db"), minFreeDiskBytes: Number.MAX_SAFE_INTEGER },
      logger,
    });
    const url = await own.listen(0);
    try {
      const res = await fetch(`${url}/readyz`);
      const body = (await res.json()) as { error: number; message: string };
      expect(res.status).toBe(503);
      expect(body).toEqual({
        error: 503,
        message: expect.stringMatching(/^Not ready \(disk_low\): .*log says why/),
      });
      expect(body.message).not.toContain(dir);
      expect(lines.map((l) => JSON.parse(l))).toContainEqual(
        expect.objectContaining({ msg: "not ready", code: "disk_low", error: expect.stringContaining(dir) }),
      );
      // The disk is not full: webhooks are still stored.
      const stored = await fetch(`${url}/plant/webhook`, {
        method: "POST",
        body: PLANT,
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      });
      expect(stored.status).toBe(200);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a client that stalls in its headers gets 408 (JSON) once headersTimeoutMs passes, not 30 s later", async () => {
    const own = await createReceiver({ tokens: [TOKEN], headersTimeoutMs: 300 });
    const url = await own.listen(0);
    try {
      // Sends half a request, then nothing: the answer must come from the 300 ms header timeout (the test's own
      // 5 s limit would fail first if node only checked every 30 s, its default).
      const answer = await raw(url, "POST /plant/webhook HTTP/1.1\r\nHost: x\r\n");
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(jsonBody(answer)).toEqual({ error: 408, message: expect.any(String) });
    } finally {
      await own.close();
    }
  }, 5_000);

  it("a client that stalls in its body gets 408 once requestTimeoutMs passes; broken chunk framing mid-body is a 400", async () => {
    const own = await createReceiver({ tokens: [TOKEN], headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const url = await own.listen(0);
    try {
      // The headers are complete and the handler is reading the body: the refusal is this request's own answer,
      // not one to queue behind it (nothing else would ever answer it).
      const slow = await raw(
        url,
        `POST /plant/webhook HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"id":`,
      );
      expect(slow).toMatch(/^HTTP\/1\.1 408 /);
      expect(jsonBody(slow)).toEqual({ error: 408, message: expect.any(String) });

      const broken = await raw(
        url,
        `POST /plant/webhook HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"i\r\n`,
        50,
        "zz\r\n",
      );
      expect(broken).toMatch(/^HTTP\/1\.1 400 /);
      expect(jsonBody(broken)).toEqual({
        error: 400,
        message: expect.stringContaining("not valid HTTP/1.1"),
      });
    } finally {
      await own.close();
    }
  }, 5_000);
});

describe("an oversized body's 413 reaches a client that keeps writing", () => {
  it.each([
    ["declared", "content-length: 5000000"],
    ["chunked", "transfer-encoding: chunked"],
  ])(
    "%s: 5 MB written without pausing, the 413 is read (lingering close, not a reset)",
    async (_, framing) => {
      const head = [
        "POST /plant/webhook HTTP/1.1",
        "host: x",
        `authorization: Bearer ${TOKEN}`,
        "content-type: application/json",
        framing,
        "",
        "",
      ].join("\r\n");
      // Chunked: one 5 MB chunk, so the receiver learns the size only by reading past its 512-byte cap.
      const answer = await keepWriting(
        receiver.url,
        framing.startsWith("transfer") ? `${head}${(5_000_000).toString(16)}\r\n` : head,
        5_000_000,
      );
      expect(answer.raw).toMatch(/^HTTP\/1\.1 413 /);
      expect(jsonBody(answer.raw)).toEqual({
        error: 413,
        message: expect.stringContaining("larger than 512"),
      });
    },
  );
});

describe("log lines", () => {
  it("take a bounded part of what a request sends: a 16,000-character webhook-id costs no 16 KiB line", async () => {
    const id = `msg_${"a".repeat(16_000)}`;
    const res = await post(receiver.url, PLANT, { "content-type": "application/json", "webhook-id": id });
    expect(res.status).toBe(401);
    const line = await until(() =>
      receiver
        .stdout()
        .split("\n")
        .find((l) => l.includes('"msg":"webhook"') && l.includes("msg_aaaa")),
    );
    expect(line.length).toBeLessThan(1_000);
    expect(JSON.parse(line)).toMatchObject({
      status: 401,
      webhookId: expect.stringMatching(/^msg_a+…\(15804 more characters\)$/),
    });
  });
});

describe("answers node:http would write itself are JSON", () => {
  nodeAnswerProbes(() => receiver.url);
});
