import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { packAll } from "../src/workspace.js";

declare module "vitest" {
  export interface ProvidedContext {
    tarballs: Record<string, string>;
  }
}

/** Packs every publishable package once (they must be built: turbo runs `^build` before this suite). */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-packs-"));
  project.provide("tarballs", await packAll(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
