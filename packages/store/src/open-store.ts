import type { Store } from "./api/store.js";
import { StoreInputError } from "./errors.js";
import { type OpenStoreOptions, resolveOptions } from "./options.js";
import { createSecretBox } from "./shared/secret-box.js";
import { openSqliteStore } from "./sqlite/open-sqlite.js";

/**
 * Opens a store and applies pending migrations. A string is the `url` option:
 * `":memory:"`, a file path, `sqlite:<path>` or `file:<path>` → SQLite (the default, embedded);
 * `postgres://…` / `postgresql://…` → PostgreSQL.
 *
 * @example
 * ```ts
 * import { openStore } from "@plant-store/store";
 * const store = await openStore(process.env.PLANT_STORE_DATABASE_URL ?? "./data/plant-store.db");
 * const pgStore = await openStore({ url: "postgres://app@db/app", schema: "webhooks", encryptionKey });
 * ```
 */
export async function openStore(target: string | OpenStoreOptions): Promise<Store> {
  const options: OpenStoreOptions = typeof target === "string" ? { url: target } : target;
  const resolved = resolveOptions(options);
  const box = createSecretBox({
    key: options.encryptionKey,
    previousKeys: options.previousEncryptionKeys,
    logger: resolved.logger,
  });
  const url = options.url;
  if (options.pool || (url !== undefined && /^postgres(ql)?:\/\//i.test(url))) {
    // Loaded on demand so SQLite-only apps never load pg.
    const { openPgStore } = await import("./pg/open-pg.js");
    return openPgStore(options, resolved, box);
  }
  if (url === undefined || url === "") {
    throw new StoreInputError(
      "invalid_url",
      'openStore needs a url: a SQLite file path, ":memory:" or postgres://…',
    );
  }
  return openSqliteStore(sqlitePath(url), resolved, box);
}

/** `sqlite:<path>`, `sqlite://<path>`, `file:<path>` and plain paths → a filesystem path. */
function sqlitePath(url: string): string {
  if (url === ":memory:" || url === "sqlite::memory:") return ":memory:";
  if (/^file:/i.test(url)) return decodeURIComponent(new URL(url).pathname);
  const match = /^sqlite:(?:\/\/)?(.+)$/i.exec(url);
  return match ? (match[1] as string) : url;
}
