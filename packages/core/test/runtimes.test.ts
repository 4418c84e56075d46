import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Core's signing, verification, token and Fetch-adapter checks (test/runtimes/core-suite.mjs) under each runtime,
// against the built package as users import it. Bun and Deno come from the npm registry as devDependencies.
const require = createRequire(import.meta.url);
const binary = (pkg: string, path: string) => join(dirname(require.resolve(`${pkg}/package.json`)), path);
const suite = fileURLToPath(new URL("./runtimes/core-suite.mjs", import.meta.url));
const cwd = fileURLToPath(new URL("..", import.meta.url));

const RUNTIMES = [
  { name: "node", command: process.execPath, args: [suite] },
  { name: "bun", command: binary("@oven/bun-linux-x64", "bin/bun"), args: [suite] },
  {
    name: "deno",
    command: binary("@deno/linux-x64-glibc", "deno"),
    // Reads node_modules and the environment; serves and fetches on a local port.
    args: ["run", "--allow-read", "--allow-env", "--allow-net", "--no-prompt", suite],
  },
];

describe.each(RUNTIMES)("core on $name", ({ name, command, args }) => {
  it("passes every check of the cross-runtime suite, README examples included", async () => {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      // A hung runtime is killed by the timeout, so the test ends and leaves no process behind.
      const child = execFile(
        command,
        args,
        { cwd, timeout: 100_000, env: { ...process.env, EXPECT_CRYPTO: "node", NO_COLOR: "1" } },
        (error, out, err) =>
          resolve({ code: error ? ((error.code as number | null) ?? 1) : 0, stdout: out, stderr: err }),
      );
      child.stdin?.end();
    });
    const closing = stdout.trim().split("\n").at(-1) ?? "";
    // Shown in `npm test` output: which runtime ran how many checks.
    console.log(closing);
    expect(stdout + stderr).not.toMatch(/^FAIL /m);
    expect(closing).toMatch(new RegExp(`^core on ${name} \\(#crypto: node\\): \\d+ passed, 0 failed$`));
    expect(Number(/(\d+) passed/.exec(closing)?.[1])).toBeGreaterThanOrEqual(name === "node" ? 12 : 13);
    expect(code).toBe(0);
  }, 120_000);
});

describe("README", () => {
  it.each(["bun-serve.mjs", "deno-serve.mjs", "workers.mjs"])("shows examples/%s unchanged", (file) => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL(`../examples/${file}`, import.meta.url), "utf8").trimEnd();
    expect(readme).toContain(`\`\`\`js\n${example}\n\`\`\``);
  });
});
