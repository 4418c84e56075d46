import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { createSecret, createToken } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listeningUrl, type Running, startProcess } from "../../../test-support/processes.js";
import { copyRepository, ROOT } from "../../../test-support/repository-copy.js";

// docs/adding-a-webhook.md, followed on a copy of the repository: the webhook its step 1 shows is added to
// spec/openapi.yaml, `gen` runs, a changeset is added, and then the copy's receiver and CLI — whose code nobody
// touched — receive, validate, send and list the new event. Only @plant-store/spec is rebuilt in the copy: every
// other package runs the build of this checkout, so nothing but the document and its generated files changed.
const run = promisify(execFile);
let copy: string;
let remove = () => {};
const running: Running[] = [];

async function sh(command: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: copy,
      env: { ...process.env, NO_COLOR: "1", ...env },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}
const cli = (...args: string[]) => sh(process.execPath, [join(copy, "apps/cli/dist/bin.js"), ...args]);

beforeAll(() => {
  ({ root: copy, remove } = copyRepository({ builds: true, prefix: "adding-a-webhook-" }));
});
afterAll(async () => {
  for (const proc of running) await proc.stop();
  remove();
});

describe("adding a webhook takes only the documented steps", { timeout: 240_000 }, () => {
  it("edit openapi.yaml, gen, changeset: the receiver and the CLI then receive, validate, send and list it", async () => {
    // Step 1: the YAML the document shows, added under `webhooks`.
    const guide = readFileSync(join(ROOT, "docs/adding-a-webhook.md"), "utf8");
    const shown = /```yaml\nwebhooks:\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(shown, "docs/adding-a-webhook.md shows the webhook to add").toBeDefined();
    const specFile = join(copy, "spec/openapi.yaml");
    writeFileSync(specFile, readFileSync(specFile, "utf8").replace("\nwebhooks:\n", `\nwebhooks:\n${shown}`));

    // Step 2: generate (then build the spec package, as npm test's turbo run does).
    const pnpm = join(copy, "node_modules/.bin/pnpm");
    const gen = await sh(pnpm, ["--filter", "@plant-store/spec", "gen"]);
    expect(gen.code, gen.output).toBe(0);
    expect(readFileSync(join(copy, "spec/src/generated/catalog.ts"), "utf8")).toContain('"plantWatered"');
    const build = await sh(pnpm, ["--filter", "@plant-store/spec", "build"]);
    expect(build.code, build.output).toBe(0);

    // Step 3: the contract gate asks for a changeset, and takes a minor one. As right after a release: no pending
    // changeset names the spec yet (one that did would already cover the new webhook).
    for (const file of readdirSync(join(copy, ".changeset")).filter((name) => name.endsWith(".md"))) {
      const path = join(copy, ".changeset", file);
      if (readFileSync(path, "utf8").includes('"@plant-store/spec"')) rmSync(path);
    }
    const gate = () => sh(process.execPath, ["contracts/src/bin.mjs", "check"]);
    const refused = await gate();
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/@plant-store\/spec[\s\S]*\/plant\/watered/);
    writeFileSync(
      join(copy, ".changeset/plant-watered.md"),
      '---\n"@plant-store/spec": minor\n---\n\nThe Plant Watered webhook.\n',
    );
    const passed = await gate();
    expect(passed.code, passed.output).toBe(0);

    // Step 4: what the document says now works, with no other edit.
    const events = await cli("events");
    expect(events.code).toBe(0);
    expect(events.output).toMatch(/plantWatered {2}Plant Watered {2}POST \/plant\/watered/);
    const token = createToken();
    const secret = createSecret();
    const admin = createToken();
    const receiver = await startProcess(
      join(copy, "apps/receiver/dist/bin.js"),
      ["--port", "0", "--token", token, "--secret", secret, "--admin-token", admin, "--db", ":memory:"],
      (out) => listeningUrl(out),
    );
    running.push(receiver);
    const send = (data?: string) =>
      cli(
        "send",
        `${receiver.info}/plant/watered`,
        "--event",
        "plantWatered",
        "--token",
        token,
        "--secret",
        secret,
        ...(data ? ["--data", data] : []),
        "--json",
      );
    const sent = await send(); // the document's example
    expect(JSON.parse(sent.output.split("\n")[0] as string)).toMatchObject({ status: 200 });
    const bad = await send('{"plantId":1,"litres":"half"}');
    expect(bad.code).toBe(1);
    const answer = JSON.parse(bad.output.split("\n")[0] as string) as { status: number; body: string };
    expect(answer.status).toBe(422);
    expect(answer.body).toMatch(/At \/litres: litres must be a number/);
    const listed = await fetch(`${receiver.info}/events?type=plantWatered`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const page = (await listed.json()) as { data: { type: string; payload: unknown }[] };
    expect(page.data.map((event) => [event.type, event.payload])).toEqual([
      ["plantWatered", { plantId: 1, litres: 0.5 }],
    ]);
  });
});
