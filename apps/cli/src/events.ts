import {
  type Catalog,
  findEvent,
  catalog as specCatalog,
  unknownEventMessage,
  type WebhookEntry,
} from "@plant-store/spec";
import { CliError } from "./cli-error.js";

/** `--event <name|path>` and `--spec <file>`: which webhook of which document a command works on. */
export interface EventOptions {
  event?: string;
  spec?: string;
}

/**
 * The catalog a command works on: the document of `--spec` (or `PLANT_STORE_SPEC`), read at run time, or the
 * built-in contract's. A document that cannot be read is a usage error (exit 2) naming the file.
 *
 * @example
 * ```ts
 * const catalog = await commandCatalog({ spec: "openapi.yaml" });
 * ```
 */
export async function commandCatalog(options: EventOptions): Promise<Catalog> {
  const file = options.spec ?? (process.env.PLANT_STORE_SPEC || undefined);
  if (file === undefined) return specCatalog;
  const { loadCatalog } = await import("@plant-store/spec/load");
  try {
    return await loadCatalog(file);
  } catch (error) {
    throw new CliError(`--spec: ${(error as Error).message}`, 2);
  }
}

/**
 * The webhook `--event` names (its type, path or name; default the catalog's first, New Plant), with its catalog.
 * An unknown name is a usage error listing the known ones.
 *
 * @example
 * ```ts
 * const { entry } = await commandEvent({ event: "/plant/webhook" }); // entry.type === "newPlant"
 * ```
 */
export async function commandEvent(
  options: EventOptions,
): Promise<{ catalog: Catalog; entry: WebhookEntry }> {
  const catalog = await commandCatalog(options);
  const entry = options.event === undefined ? catalog[0] : findEvent(catalog, options.event);
  if (!entry) throw new CliError(`--event: ${unknownEventMessage(catalog, options.event ?? "")}`, 2);
  return { catalog, entry };
}
