import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

// Users compiling with `exactOptionalPropertyTypes: true` must be able to use the documented payload type and pass
// `undefined` (e.g. from process.env) to every optional option: test/exact-optional/consumer.ts does both, and
// this compiles it under that flag with the workspace's TypeScript.
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const project = fileURLToPath(new URL("./exact-optional/tsconfig.json", import.meta.url));

it("the public API type-checks under exactOptionalPropertyTypes", async () => {
  const result = await promisify(execFile)(process.execPath, [tsc, "-p", project, "--pretty", "false"]).then(
    () => "",
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
  );
  expect(result).toBe("");
}, 120_000);
