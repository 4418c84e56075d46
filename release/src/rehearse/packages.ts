import { publishablePackages } from "../workspace.js";
import type { RehearsalContext } from "./context.js";

/**
 * Package name → version, as the manifests under `root` say now (after a `changeset version`, the new ones).
 *
 * @example
 * ```ts
 * freshVersions(ctx.copy)["@plant-store/spec"]; // "1.2.0"
 * ```
 */
export function freshVersions(root: string): Record<string, string> {
  return Object.fromEntries(publishablePackages(root).map((p) => [p.manifest.name, p.manifest.version]));
}

/** The copy's public packages, in dependency order. */
export function packageNames(ctx: RehearsalContext): string[] {
  return publishablePackages(ctx.copy).map((p) => p.manifest.name);
}

/** A package's version in the copy now. */
export function versionOf(ctx: RehearsalContext, name: string): string {
  return freshVersions(ctx.copy)[name] as string;
}
