import { spawn, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { styleText } from "node:util";
import { DEFAULT_ADMIN_TIMEOUT_MS } from "@plant-store/admin-api";
import {
  createSecret,
  createToken,
  DELIVERY_STATES,
  MAX_DISABLE_REASON_LENGTH,
  PAGE_SIZE,
} from "@plant-store/core";
import { afterAll, describe, expect, it } from "vitest";
import { track } from "../../../test-support/processes.js";
import { background, budget, CLI, captureServer, cli, until } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "plant-store-cli-edges-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI, keeps the first line of stdout and then closes the pipe, as `| head -1` does. */
function firstLineThenClose(args: string[]) {
  return new Promise<{ code: number | null; first: string; stderr: string }>((resolve) => {
    const child = track(
      spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let out = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      out += c;
      if (out.includes("\n")) child.stdout.destroy();
    });
    child.stderr.on("data", (c) => (stderr += c));
    child.on("exit", (code) => resolve({ code, first: out.split("\n")[0] ?? "", stderr }));
  });
}

describe("output", () => {
  it("a reader closing stdout early (| head -1) ends the command quietly, without a stack trace", async () => {
    const file = join(dir, "many.ndjson");
    // ~600 KB of results: far more than a pipe buffers, so the CLI is still writing when the pipe closes.
    writeFileSync(
      file,
      Array.from({ length: 20_000 }, (_, i) => `{"id":${i},"name":"plant ${i}"}`).join("\n"),
    );
    for (const extra of [[], ["--json"]]) {
      const run = await firstLineThenClose(["validate", file, ...extra]);
      expect(run.first).toMatch(/line 1|"line":1,/);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
    }
  });

  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.skipIf(!hasScript)(
    "colours are decided per stream: a terminal stdout does not colour a redirected stderr",
    () => {
      const file = join(dir, "one.json");
      writeFileSync(file, '{"id":1,"name":"Fern"}');
      const errFile = join(dir, "stderr.txt");
      const env = { ...process.env };
      delete env.NO_COLOR;
      const node = `"${process.execPath}" "${CLI}"`;
      // `script` runs the commands with stdout on a pseudo-terminal; stderr goes to a file.
      const tty = spawnSync(
        "script",
        [
          "-qc",
          `${node} validate "${file}"; ${node} send http://127.0.0.1:1/plant/webhook --token x 2>"${errFile}"`,
          "/dev/null",
        ],
        { env, encoding: "utf8" },
      );
      expect(tty.stdout).toContain(styleText("green", "valid"));
      const stderr = readFileSync(errFile, "utf8");
      expect(stderr).toMatch(/^failed: /);
      expect(stderr).not.toContain("\x1b[");
    },
  );
});

describe("flags that cannot work are usage errors, before anything is sent", () => {
  it("credentials in the URL, a token with a newline, an out-of-range --timeout: exit 2, nothing sent, no secret echoed", async () => {
    const server = await captureServer();
    try {
      const withCredentials = server.url.replace("http://", "http://user:hunter2@");
      const creds = await cli(["send", withCredentials, "--token", "psk_x"]);
      expect(creds.code).toBe(2);
      expect(creds.stderr).toMatch(/must not contain credentials/);
      expect(creds.stderr).not.toContain("hunter2");
      // A URL that does not parse (port out of range) is echoed without what stands before "@".
      const unparsable = await cli(["send", "http://user:hunter2@127.0.0.1:99999/x", "--token", "psk_x"]);
      expect(unparsable.code).toBe(2);
      expect(unparsable.stderr).toMatch(/is not a URL/);
      expect(unparsable.stderr).not.toContain("hunter2");
      const newline = await cli(["send", server.url, "--token", "psk_secret\nvalue"]);
      expect(newline.code).toBe(2);
      expect(newline.stderr).toMatch(/--token .*bearer token cannot carry/);
      expect(newline.stderr).not.toContain("psk_secret");
      for (const timeout of ["3000000000", "99999999999999999999999", "600001"]) {
        const r = await cli(["send", server.url, "--token", "psk_x", "--timeout", timeout]);
        expect(r.code, timeout).toBe(2);
        expect(r.stderr, timeout).toMatch(
          /^plant-store: --timeout must be a whole number from 1 to 600000 ms/,
        );
        expect(r.stderr, timeout).not.toMatch(/Warning|RangeError/);
      }
      expect(server.requests).toHaveLength(0);
      expect((await cli(["send", server.url, "--token", "psk_x", "--timeout", "600000"])).code).toBe(0);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("network failures say what went wrong, not an error class", async () => {
    const badPort = await cli(["send", "http://127.0.0.1:1/plant/webhook", "--token", "psk_x"]);
    expect(badPort.code).toBe(1);
    expect(badPort.stderr).toMatch(/^failed: fetch refuses this port as unsafe .*use another port/);
    // A port that was just free: nothing listens there.
    const gone = await captureServer();
    await gone.close();
    const refused = await cli(["send", gone.url, "--token", "psk_x", "--json"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatch(/^connection refused/);
    for (const r of [badPort, refused]) expect(r.stdout + r.stderr).not.toMatch(/TypeError/);
  });
});

describe("payload flags", () => {
  it("--tag alone builds the example with that tag; --data/--file with a field flag is a usage error naming both", async () => {
    const server = await captureServer();
    try {
      expect((await cli(["send", server.url, "--token", "psk_x", "--tag", "rare"])).code).toBe(0);
      expect(JSON.parse(server.requests[0]?.body.toString() ?? "")).toEqual({
        id: 1,
        name: "Monstera deliciosa",
        tag: "rare",
      });
      const conflict = await cli([
        "send",
        server.url,
        "--token",
        "psk_x",
        "--data",
        '{"id":1,"name":"a"}',
        "--tag",
        "x",
      ]);
      expect(conflict.code).toBe(2);
      expect(conflict.stderr).toMatch(/--data and --tag conflict/);
      const secret = createSecret();
      const signConflict = await cli(["sign", "--secret", secret, "--file", "-", "--id", "3"], {
        input: "{}",
      });
      expect(signConflict.code).toBe(2);
      expect(signConflict.stderr).toMatch(/--file and --id conflict/);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("--id is an int64 as JSON writes it: no leading zeros, nothing beyond int64", async () => {
    const server = await captureServer();
    try {
      for (const id of ["007", "+7", "9223372036854775808", "-9223372036854775809", "1e3"]) {
        const r = await cli(["send", server.url, "--token", "psk_x", "--id", id]);
        expect(r.code, id).toBe(2);
        expect(r.stderr, id).toMatch(/--id /);
      }
      expect(server.requests).toHaveLength(0);
      for (const id of ["9223372036854775807", "-9223372036854775808", "0"]) {
        expect((await cli(["send", server.url, "--token", "psk_x", "--id", id, "--name", "Big"])).code).toBe(
          0,
        );
      }
      expect(server.requests.map((r) => r.body.toString())).toEqual([
        '{"id":9223372036854775807,"name":"Big","tag":"tropical"}',
        '{"id":-9223372036854775808,"name":"Big","tag":"tropical"}',
        '{"id":0,"name":"Big","tag":"tropical"}',
      ]);
    } finally {
      await server.close();
    }
  });

  it("sign and verify need a body: --data, --file, --id/--name/--tag or --example", async () => {
    const secret = createSecret();
    const sign = await cli(["sign", "--secret", secret]);
    expect(sign.code).toBe(2);
    expect(sign.stderr).toMatch(/--data .*--file .*--example/);
    const verify = await cli([
      "verify",
      "--secret",
      secret,
      "--signature",
      "v1,x",
      "--msg-id",
      "msg_1",
      "--timestamp",
      "1",
    ]);
    expect(verify.code).toBe(2);
    expect(verify.stderr).toMatch(/--data .*--file .*--example/);
    const example = JSON.parse(
      (await cli(["sign", "--secret", secret, "--example", "--json"])).stdout,
    ) as Record<string, string>;
    const headers = Object.entries(example).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
    expect((await cli(["verify", "--secret", secret, ...headers, "--example"])).code).toBe(0);
  });

  it("--file is signed and sent byte for byte, also when it is not UTF-8", async () => {
    const secret = createSecret();
    const bytes = Buffer.concat([
      Buffer.from('{"id":1,"name":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const file = join(dir, "binary.json");
    writeFileSync(file, bytes);
    const hmac = (id: string, ts: string, body: Buffer) =>
      `v1,${createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
        .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body]))
        .digest("base64")}`;
    for (const args of [
      ["--file", file],
      ["--file", "-"],
    ]) {
      const signed = await cli(
        ["sign", "--secret", secret, "--msg-id", "msg_1", "--timestamp", "1700000000", ...args, "--json"],
        { input: bytes },
      );
      expect(JSON.parse(signed.stdout)["webhook-signature"], args[1]).toBe(
        hmac("msg_1", "1700000000", bytes),
      );
    }
    const ts = String(Math.floor(Date.now() / 1000));
    const verified = await cli([
      "verify",
      "--secret",
      secret,
      "--msg-id",
      "msg_2",
      "--timestamp",
      ts,
      "--signature",
      hmac("msg_2", ts, bytes),
      "--file",
      file,
    ]);
    expect(verified.stdout).toMatch(/^valid/);
    const server = await captureServer(422);
    try {
      await cli(["send", server.url, "--token", "psk_x", "--secret", secret, "--file", file]);
      const got = server.requests[0];
      expect(got?.body.equals(bytes)).toBe(true);
      const h = got?.headers as Record<string, string>;
      expect(h["webhook-signature"]).toBe(
        hmac(h["webhook-id"] as string, h["webhook-timestamp"] as string, bytes),
      );
    } finally {
      await server.close();
    }
  });
});

describe("validate", () => {
  it("a pretty-printed document with a schema error is one document with one issue, not NDJSON noise", async () => {
    const input = '{\n "id": "x",\n "name": "Fern"\n}\n';
    const human = await cli(["validate", "-"], { input });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^invalid line 1 \/id: id must be an integer/);
    expect(human.stdout).toMatch(/0 valid, 1 invalid\n$/);
    expect(human.stdout).not.toMatch(/not valid JSON/);
    const json = await cli(["validate", "-", "--json"], { input });
    const results = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(results).toHaveLength(1);
    expect(results[0].issues.map((i: { pointer: string }) => i.pointer)).toEqual(["/id"]);
  });
});

describe("listen", () => {
  it("answers the sender before forwarding; forwards one at a time, in the order received", async () => {
    const token = createToken();
    const secret = createSecret();
    const seen: string[] = [];
    const held: ServerResponse[] = [];
    const downstream = createServer((req, res) => {
      seen.push(String(req.headers["webhook-id"]));
      req.resume();
      held.push(res);
    });
    await new Promise<void>((r) => downstream.listen(0, "127.0.0.1", r));
    const target = `http://127.0.0.1:${(downstream.address() as { port: number }).port}/hook`;
    const listener = await background(
      CLI,
      // Ordering only: a failed forward is not retried here (retries: events.test.ts).
      [
        "listen",
        "--port",
        "0",
        "--token",
        token,
        "--secret",
        secret,
        "--forward-to",
        target,
        "--retries",
        "0",
        "--json",
      ],
      (_out, err) => err.split("\n").find((l) => l.includes('"listening"')),
    );
    const url = (JSON.parse(listener.info) as { listening: string }).listening;
    const send = async (name: string) => {
      // The downstream answers nothing until released below: a sender waiting for it would time out here.
      const r = await cli([
        "send",
        url,
        "--token",
        token,
        "--secret",
        secret,
        "--name",
        name,
        "--timeout",
        "5000",
        "--json",
      ]);
      return JSON.parse(r.stdout) as { status: number; webhookId: string };
    };
    try {
      const first = await send("first");
      expect(first.status).toBe(200);
      await until(() => seen.length === 1);
      const second = await send("second");
      expect(second.status).toBe(200);
      // The second waits for the first forward to settle.
      expect(seen).toEqual([first.webhookId]);
      held[0]?.writeHead(202).end();
      await until(() => seen.length === 2);
      held[1]?.writeHead(500).end();
      expect(seen).toEqual([first.webhookId, second.webhookId]);
      const lines = await until(() => {
        const printed = listener.stdout().trim().split("\n").filter(Boolean);
        return printed.length === 2 && printed.map((l) => JSON.parse(l));
      });
      expect(
        lines.map((l: { webhookId: string; forwarded: { status: number } }) => [
          l.webhookId,
          l.forwarded.status,
        ]),
      ).toEqual([
        [first.webhookId, 202],
        [second.webhookId, 500],
      ]);
    } finally {
      await listener.stop();
      downstream.close();
    }
  });

  it("accepts every int64 id and prints it exactly (--lossless, the old way to ask for it, still accepted)", async () => {
    const token = createToken();
    const secret = createSecret();
    const body = '{"id":9223372036854775807,"name":"Big"}';
    for (const lossless of [false, true]) {
      const listener = await background(
        CLI,
        [
          "listen",
          "--port",
          "0",
          "--token",
          token,
          "--secret",
          secret,
          "--json",
          ...(lossless ? ["--lossless"] : []),
        ],
        (_out, err) => err.split("\n").find((l) => l.includes('"listening"')),
      );
      try {
        const url = (JSON.parse(listener.info) as { listening: string }).listening;
        const sent = await cli(["send", url, "--token", token, "--secret", secret, "--data", body, "--json"]);
        expect(JSON.parse(sent.stdout).status, String(lossless)).toBe(200);
        expect(await until(() => listener.stdout())).toContain('"payload":{"id":9223372036854775807,');
      } finally {
        await listener.stop();
      }
    }
  });

  it("prints only the credentials it generated, never the ones given to it", async () => {
    const token = createToken();
    const secret = createSecret();
    for (const json of [true, false]) {
      const listener = await background(
        CLI,
        ["listen", "--port", "0", "--token", token, "--secret", secret, ...(json ? ["--json"] : [])],
        (_out, err) => (/listening|Ctrl-C/.test(err) ? err : undefined),
      );
      await listener.stop();
      expect(listener.output()).not.toContain(token);
      expect(listener.output()).not.toContain(secret);
      if (json) expect(Object.keys(JSON.parse(listener.info))).toEqual(["listening", "events", "forwardTo"]);
    }
    const onlyToken = await background(
      CLI,
      ["listen", "--port", "0", "--secret", secret, "--json"],
      (_out, err) => err.split("\n").find((l) => l.includes('"listening"')),
    );
    await onlyToken.stop();
    expect(JSON.parse(onlyToken.info).token).toMatch(/^psk_/);
    expect(onlyToken.output()).not.toContain(secret);
  });
});

describe("administration errors", () => {
  it("a sender URL that is not a URL is a usage error; a server that does not answer JSON is named as such", async () => {
    const notUrl = await cli(["subscriptions", "list", "--sender-url", "notaurl", "--admin-token", "psk_x"]);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/--sender-url .*is not a URL/);
    const plain = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
    try {
      const base = `http://127.0.0.1:${(plain.address() as { port: number }).port}`;
      const r = await cli(["subscriptions", "list", "--sender-url", base, "--admin-token", "psk_x"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /the sender at http:\/\/127\.0\.0\.1:\d+\/ did not answer with JSON \(status 200\): "ok"/,
      );
      expect(r.stderr).not.toMatch(/Unexpected token/);
    } finally {
      plain.close();
    }
  });
});

describe("redirects are not followed", () => {
  it("send and listen --forward-to report a 30x as a failure (a followed 302 would POST nothing and 'succeed')", async () => {
    const target = await captureServer();
    const redirects = await Promise.all(
      [302, 307].map(async (status) => {
        const server = createServer((req, res) => {
          req.resume();
          res.writeHead(status, { location: target.url });
          res.end();
        });
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        return {
          status,
          server,
          url: `http://127.0.0.1:${(server.address() as { port: number }).port}/plant/webhook`,
        };
      }),
    );
    try {
      for (const { status, url } of redirects) {
        const sent = await cli(["send", url, "--token", "psk_x"]);
        expect(sent.code, String(status)).toBe(1);
        expect(sent.stdout, String(status)).toMatch(new RegExp(`^${status} `));
        expect(sent.stderr, String(status)).toMatch(
          /redirect to http:\/\/127\.0\.0\.1:\d+\/plant\/webhook, not followed/,
        );
        expect(sent.stderr, String(status)).not.toMatch(/ArrayBuffer/);
      }
      const token = createToken();
      const secret = createSecret();
      const listener = await background(
        CLI,
        ["listen", "--port", "0", "--token", token, "--secret", secret, "--forward-to", redirects[0]!.url],
        (_out, err) => /Listening on (\S+)/.exec(err)?.[1],
      );
      try {
        expect((await cli(["send", listener.info, "--token", token, "--secret", secret])).code).toBe(0);
        expect(await until(() => listener.stdout())).toMatch(/→ 302 \(a redirect to .*, not followed/);
      } finally {
        await listener.stop();
      }
      expect(target.requests).toHaveLength(0);
    } finally {
      for (const { server } of redirects) server.close();
      await target.close();
    }
  });
});

describe("send --count", () => {
  it("counts int64 ids up exactly (no duplicates beyond 2^53), and needs a JSON object", async () => {
    const server = await captureServer();
    try {
      const r = await cli([
        "send",
        server.url,
        "--token",
        "psk_x",
        "--id",
        "9007199254740993",
        "--count",
        "3",
        "--concurrency",
        "1",
      ]);
      expect(r.code).toBe(0);
      const ids = server.requests.map((q) => /"id":(-?\d+)/.exec(q.body.toString())?.[1]).sort();
      expect(ids).toEqual(["9007199254740993", "9007199254740994", "9007199254740995"]);
      const last = await cli([
        "send",
        server.url,
        "--token",
        "psk_x",
        "--id",
        "9223372036854775807",
        "--count",
        "2",
      ]);
      expect(last.code).toBe(2);
      expect(last.stderr).toMatch(/beyond the int64 range/);
      for (const data of ["null", "[1,2]", '"text"', "7"]) {
        const refused = await cli(["send", server.url, "--token", "psk_x", "--data", data, "--count", "2"]);
        expect(refused.code, data).toBe(2);
        expect(refused.stderr, data).toMatch(/--count needs a JSON object payload/);
      }
      const bom = join(dir, "bom.json");
      writeFileSync(bom, '\uFEFF{"id":5,"name":"Fern","tag":"x"}');
      server.requests.length = 0;
      expect((await cli(["send", server.url, "--token", "psk_x", "--file", bom, "--count", "2"])).code).toBe(
        0,
      );
      expect(server.requests.map((q) => q.body.toString()).sort()).toEqual([
        '{"id":5,"name":"Fern","tag":"x"}',
        '{"id":6,"name":"Fern","tag":"x"}',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("usage errors are refused before anything is sent", () => {
  it(
    "admin flags the sender would refuse, repeated flags, empty credentials: exit 2, nothing sent, nothing echoed",
    async () => {
      const sender = await captureServer();
      const base = sender.url.replace("/plant/webhook", "");
      const env = { PLANT_STORE_SENDER_URL: base, PLANT_STORE_ADMIN_TOKEN: "psk_admin" };
      try {
        for (const args of [
          ["subscriptions", "add", "http://u:pw@127.0.0.1:9/plant/webhook"],
          ["subscriptions", "add", "http://127.0.0.1:9/plant/webhook", "--token", "bad token"],
          ["subscriptions", "add", "http://127.0.0.1:9/plant/webhook", "--secret", "whsec_short"],
          ["subscriptions", "rotate", "sub_1", "--kind", "token", "--value", "bad token"],
          ["subscriptions", "rotate", "sub_1", "--kind", "secret", "--grace", "604801"],
          ["subscriptions", "rotate", "sub_1", "--kind", "token", "--grace", "60"],
          ["recover", "sub_1", "--since", "1"],
          ["recover", "sub_1", "--since", "2020-01-01"],
          ["recover", "sub_1", "--since", "Jan 1 2020"],
          ["recover", "sub_1", "--since", "2026-02-30T10:00:00Z"],
          ["publish", "--idempotency-key", "bad\nkey"],
          ["publish", "--idempotency-key", " padded"],
          ["deliveries", "list", "--state", "lost"],
          ["deliveries", "list", "--limit", "1001"],
          ["deliveries", "show", "abc"],
          ["subscriptions", "disable", "sub_1", "--reason", "r".repeat(MAX_DISABLE_REASON_LENGTH + 1)],
          ["subscriptions", "list", "--timeout", "0"],
        ]) {
          const r = await cli(args, { env });
          expect(r.code, args.join(" ")).toBe(2);
          expect(r.stderr, args.join(" ")).not.toMatch(/pw@|the sender answered/);
        }
        expect(sender.requests).toHaveLength(0);
        const hash = await cli(["token", "hash", "not a token"]);
        expect(hash.code).toBe(2);
        for (const args of [
          ["send", sender.url, "--token", "psk_a", "--token", "psk_b"],
          ["send", sender.url, "--token", "psk_a", "--secret", createSecret(), "--secret", createSecret()],
          ["verify", "--secret", createSecret(), "--tolerance", "1", "--tolerance", "2", "--example"],
          ["send", sender.url, "--token", "psk_a", "--secret", ""],
          ["send", sender.url, "--token", ""],
        ]) {
          const r = await cli(args);
          expect(r.code, args.join(" ")).toBe(2);
          expect(r.stderr, args.join(" ")).toMatch(/more than once|is empty/);
        }
        expect(sender.requests).toHaveLength(0);
        const secret = createSecret();
        const signed = JSON.parse((await cli(["sign", "--secret", secret, "--example", "--json"])).stdout);
        const rotation = await cli([
          "verify",
          "--secret",
          createSecret(),
          "--secret",
          secret,
          "--example",
          ...Object.entries(signed).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
        ]);
        expect(rotation.code).toBe(0); // verify takes several secrets
        // sign takes several too: one v1 signature each.
        const twice = await cli([
          "sign",
          "--secret",
          createSecret(),
          "--secret",
          secret,
          "--example",
          "--json",
        ]);
        expect(twice.code).toBe(0);
        expect(JSON.parse(twice.stdout)["webhook-signature"].split(" ")).toHaveLength(2);
      } finally {
        await sender.close();
      }
    },
    budget(34),
  ); // CLI processes, one after another

  it("deliveries list --help names the delivery states, page sizes and request deadline the sender takes", async () => {
    const help = (await cli(["deliveries", "list", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain(DELIVERY_STATES.join(", "));
    expect(help).toContain(`1 to ${PAGE_SIZE.max} (the sender's default: ${PAGE_SIZE.default})`);
    expect(help).toContain(`(default ${DEFAULT_ADMIN_TIMEOUT_MS})`);
  });

  it("a URL's password is never shown, also one holding a '/'", async () => {
    const r = await cli(["send", "http://admin:s3cr/et@127.0.0.1:9/plant/webhook", "--token", "psk_x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("s3cr");
  });
});

describe("admin requests have a deadline", () => {
  it("--timeout ends a request to a sender that accepts the connection and never answers", async () => {
    const silent = createNetServer((socket) => socket.resume());
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const base = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
      const started = Date.now();
      const r = await cli([
        "subscriptions",
        "list",
        "--sender-url",
        base,
        "--admin-token",
        "psk_x",
        "--timeout",
        "300",
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no answer within 300 ms \(raise --timeout\)/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      silent.close();
    }
  });

  it("TLS to a plain-HTTP port is said in words, not OpenSSL's", async () => {
    const server = await captureServer();
    try {
      const r = await cli(["send", server.url.replace("http:", "https:"), "--token", "psk_x"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/TLS handshake failed/);
      expect(r.stderr).not.toMatch(/ssl3_record|0A00010B/);
    } finally {
      await server.close();
    }
  });
});

describe("listen on IPv6", () => {
  it("prints a URL with the address in brackets, which send accepts", async () => {
    const token = createToken();
    const secret = createSecret();
    const listener = await background(
      CLI,
      ["listen", "--host", "::1", "--port", "0", "--token", token, "--secret", secret, "--json"],
      (_out, err) => err.split("\n").find((l) => l.includes('"listening"')),
    );
    try {
      const url = (JSON.parse(listener.info) as { listening: string }).listening;
      expect(url).toMatch(/^http:\/\/\[::1\]:\d+\/plant\/webhook$/);
      expect((await cli(["send", url, "--token", token, "--secret", secret])).code).toBe(0);
    } finally {
      await listener.stop();
    }
  });
});

describe("validate, byte by byte", () => {
  it("a payload that is not UTF-8 is invalid (as the receiver says); a broken pretty-printed document is one error, at its line", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      Buffer.concat([Buffer.from('{"id":1,"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    );
    const r = await cli(["validate", bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/not valid UTF-8/);
    const broken = join(dir, "broken.json");
    writeFileSync(broken, '{\n  "id": 1,\n  "name": "Fern"\n  "tag": "x"\n}\n');
    const b = await cli(["validate", broken, "--json"]);
    expect(b.code).toBe(1);
    const results = b.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ line: 4, valid: false });
    const ndjson = join(dir, "plants.ndjson");
    writeFileSync(ndjson, '{"id":1,"name":"a"}\n{"id":2,"name":\n{"id":3,"name":"c"}\n');
    const n = await cli(["validate", ndjson, "--json"]);
    expect(
      n.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).valid),
    ).toEqual([true, false, true]);
  });
});

describe("help", () => {
  it("every subcommand's --help has a description and examples", async () => {
    for (const command of [
      "token create",
      "token hash",
      "token check",
      "secret create",
      "subscriptions add",
      "subscriptions list",
      "subscriptions show",
      "subscriptions disable",
      "subscriptions enable",
      "subscriptions rotate",
      "deliveries list",
      "deliveries show",
      "deliveries resend",
    ]) {
      const help = (await cli([...command.split(" "), "--help"])).stdout;
      expect(help, command).toMatch(/^Usage: plant-store .*\n\n\S.*\n/);
      expect(help, command).toMatch(new RegExp(`^Examples?\\b[^\\n]*:\\n  plant-store ${command}`, "m"));
    }
  });
});
