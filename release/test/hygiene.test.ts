import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { describe, expect, inject, it } from "vitest";
import { publishablePackages, ROOT } from "../src/workspace.js";

const run = promisify(execFile);
const packages = publishablePackages();
const attw = join(ROOT, "release", "node_modules", ".bin", "attw");

describe.each(packages.map((p) => [p.manifest.name, p] as const))("%s", (name, { dir, manifest }) => {
  it("has the metadata users and registries read", () => {
    expect(name).toMatch(/^@plant-store\/[a-z-]+$/);
    expect(manifest.description?.length).toBeGreaterThan(30);
    expect(manifest.keywords?.length).toBeGreaterThan(2);
    expect(manifest.license).toBe("MIT");
    expect(readFileSync(join(dir, "LICENSE"), "utf8")).toMatch(/^MIT License/);
    expect(manifest.repository).toEqual({
      type: "git",
      url: "git+https://github.com/plant-store/plant-store.git",
      directory: dir.slice(ROOT.length).replace(/^\/|\/$/g, ""),
    });
    expect(manifest.type).toBe("module");
    expect(manifest.engines?.node).toBe(">=20.19");
    expect(manifest.files).toContain("dist");
    expect(manifest.publishConfig).toEqual({ access: "public", provenance: true });
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain(`# ${name}`);
    expect(readme.toLowerCase()).toMatch(/install/);
  });

  it("lists `types` first in every export condition object", () => {
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (typeof target === "string") continue;
      const keys = Object.keys(target as object).filter((k) => k !== "@plant-store/source");
      expect(keys[0], `exports["${subpath}"]`).toBe("types");
    }
  });

  it("declares sideEffects: false when it is a library, and a shebang on every bin", () => {
    if (manifest.bin) {
      for (const [bin, file] of Object.entries(manifest.bin)) {
        expect(existsSync(join(dir, file)), `${bin} → ${file} (built?)`).toBe(true);
        expect(readFileSync(join(dir, file), "utf8").startsWith("#!/usr/bin/env node\n"), bin).toBe(true);
      }
    } else {
      expect(manifest.sideEffects).toBe(false);
    }
  });

  it("passes publint (strict) on the packed tarball", async () => {
    const tarball = inject("tarballs")[name] as string;
    const bytes = readFileSync(tarball);
    const { messages, pkg } = await publint({
      pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
      level: "suggestion",
      strict: true,
    });
    expect(messages.map((m) => formatMessage(m, pkg) ?? m.code)).toEqual([]);
  });

  it("passes attw (are the types wrong) on the packed tarball, ESM-only profile", async () => {
    const tarball = inject("tarballs")[name] as string;
    // Non-JavaScript assets (the spec's openapi.yaml) are exported for tools that read files; TypeScript cannot
    // import them, which attw reports as "no resolution". They are excluded by name, nothing else is.
    const assets = Object.entries(manifest.exports ?? {})
      .filter(([, target]) => typeof target === "string" && !/\.(js|json)$/.test(target))
      .map(([subpath]) => subpath);
    const exclude = assets.length > 0 ? ["--exclude-entrypoints", ...assets] : [];
    const args = [tarball, "--profile", "esm-only", "--format", "ascii", "--no-color", ...exclude];
    const result = await run(attw, args, {
      env: { ...process.env, NO_COLOR: "1" },
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect("code" in result ? result.code : 0, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it("publishes no tests, sources or benchmarks", async () => {
    const tarball = inject("tarballs")[name] as string;
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n");
    expect(files.filter((f) => /\.test\.|\/test\/|\/bench\/|\/src\/|tsconfig|vitest/.test(f))).toEqual([]);
    expect(files).toContain("package/package.json");
    expect(files).toContain("package/LICENSE");
    expect(files).toContain("package/README.md");
  });
});
