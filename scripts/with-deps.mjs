#!/usr/bin/env node
// Runs a command with the workspace's dependencies installed, so that `npm test` and
// `npm run demo` work on a fresh clone with only Node and npm. pnpm itself comes from
// the registry through npx, pinned to the version in package.json#packageManager.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pnpmSpec = pkg.packageManager; // "pnpm@x.y.z"
const isWin = process.platform === "win32";

function run(cmd, args, extraEnv = {}) {
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: "inherit",
    shell: isWin,
    env: { ...process.env, ...extraEnv },
  });
  if (r.error) {
    console.error(`with-deps: could not run ${cmd}: ${r.error.message}`);
    process.exit(1);
  }
  return r.status ?? 1;
}

function pnpm(args) {
  // A pnpm already on PATH at the pinned version is used as is; otherwise npx fetches it.
  return run("npx", ["-y", pnpmSpec, ...args]);
}

const marker = join(root, "node_modules", ".modules.yaml");
const lock = join(root, "pnpm-lock.yaml");
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale) {
  const frozen = process.env.CI ? ["--frozen-lockfile"] : [];
  const code = pnpm(["install", ...frozen]);
  if (code !== 0) process.exit(code);
}

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) process.exit(0);
const bin = join(root, "node_modules", ".bin");
const code = run(cmd, args, { PATH: `${bin}${isWin ? ";" : ":"}${process.env.PATH}` });
process.exit(code);
