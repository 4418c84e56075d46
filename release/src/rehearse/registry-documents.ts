import { tmpdir } from "node:os";
import { command, env } from "./commands.js";
import { type RehearsalContext, registryOf } from "./context.js";

/** A package's versions and dist-tags as a registry reports them. */
export interface PackageView {
  versions: string[];
  "dist-tags": Record<string, string>;
}

/**
 * The registry's document for a package, read over HTTP (npm starts slowly, and this is read once per package).
 *
 * @example
 * ```ts
 * (await packument(ctx, "@plant-store/spec"))["dist-tags"].latest; // "2.0.0"
 * ```
 */
export async function packument(ctx: RehearsalContext, name: string): Promise<PackageView> {
  const response = await fetch(`${registryOf(ctx).url}${name.replace("/", "%2f")}`);
  if (response.status === 404) return { versions: [], "dist-tags": {} };
  if (!response.ok) throw new Error(`the registry answered ${response.status} for ${name}`);
  const body = (await response.json()) as {
    versions: Record<string, unknown>;
    "dist-tags": Record<string, string>;
  };
  return { versions: Object.keys(body.versions), "dist-tags": body["dist-tags"] };
}

/** A package's versions and dist-tags as `npm view` reports them: what users see. */
export async function view(ctx: RehearsalContext, name: string): Promise<PackageView> {
  const out = await command(ctx, "npm", ["view", name, "versions", "dist-tags", "--json"], {
    cwd: tmpdir(),
    env: env(ctx, { npm_config_prefer_online: "true" }),
    timeout: 60_000,
    stdout: true,
  });
  const json = JSON.parse(out) as { versions: string[] | string; "dist-tags": Record<string, string> };
  return { versions: ([] as string[]).concat(json.versions), "dist-tags": json["dist-tags"] };
}
