import { execFile } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { copyWorkspace, pnpmCommand, publishablePackages, ROOT } from "../src/workspace.js";

const run = promisify(execFile);
let copy: string | undefined;
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

it("`npm run release` (build + changeset publish) publishes every package — as a dry run, from a throwaway copy", async () => {
  const manifest = (await import(join(ROOT, "package.json"), { with: { type: "json" } })).default as {
    scripts: Record<string, string>;
  };
  expect(manifest.scripts.release).toMatch(/turbo run build.*&&.*changeset publish/);

  copy = await copyWorkspace();
  const [cmd, prefix] = pnpmCommand(copy);
  await run(cmd, [...prefix, "install", "--offline", "--ignore-scripts", "--frozen-lockfile"], { cwd: copy });
  await run("git", ["init", "-q"], { cwd: copy });
  await run("git", ["add", "-A"], { cwd: copy });
  await run("git", ["-c", "user.name=ci", "-c", "user.email=ci@example.invalid", "commit", "-qm", "copy"], {
    cwd: copy,
  });
  // Two locks keep this a dry run: npm's own dry-run switch, and no credentials at all (an empty user config),
  // so an upload would be refused even if the switch were ignored.
  const npmrc = join(copy, ".empty-npmrc");
  writeFileSync(npmrc, "");
  const result = await run("npm", ["run", "release"], {
    cwd: copy,
    env: {
      ...process.env,
      npm_config_dry_run: "true",
      npm_config_userconfig: npmrc,
      NPM_TOKEN: "",
      NODE_AUTH_TOKEN: "",
      TURBO_TELEMETRY_DISABLED: "1",
      // The copy's build replays the workspace's turbo cache where the inputs are the same (as a CI cache would):
      // what this test checks is the release path, and every package's build is already part of the suite.
      TURBO_CACHE_DIR: join(ROOT, ".turbo", "cache"),
    },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 540_000,
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  const output = result.stdout + result.stderr;
  expect("code" in result ? result.code : 0, output.slice(-4000)).toBe(0);
  expect(output).toContain("packages published successfully");
  const { stdout: tags } = await run("git", ["tag"], { cwd: copy });
  for (const { manifest: pkg } of publishablePackages(copy)) {
    expect(output).toContain(`${pkg.name}@${pkg.version}`);
    expect(tags.split("\n")).toContain(`${pkg.name}@${pkg.version}`);
  }
});
