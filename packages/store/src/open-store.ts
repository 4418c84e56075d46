import type { Store } from "./api/store.js";
import { StoreConfigError, StoreInputError } from "./errors.js";
import { type OpenStoreOptions, type ResolvedOptions, resolveOptions } from "./options.js";
import { createSecretBox, type SecretBox } from "./shared/secret-box.js";
import { openSqliteStore } from "./sqlite/open-sqlite.js";

/**
 * Opens a store, applies pending migrations and checks that every key the stored credentials were
 * sealed with is configured (`encryption_key_missing` / `encryption_key_unknown` otherwise), so a
 * wrong key fails at start rather than at the first delivery. A string is the `url` option:
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
  // While the check runs, `open` tests each key id once (one decryption per key, not per row); a row
  // that fails authentication still names a configured key, and fails alone when it is used.
  const checked = new Set<string>();
  let open = (stored: string, aad: string): string => {
    const id = stored.startsWith(SEALED) ? (stored.slice(SEALED.length).split(":")[0] ?? "") : undefined;
    if (id === undefined || checked.has(id)) return "";
    try {
      box.open(stored, aad);
    } catch (error) {
      if (!(error instanceof StoreConfigError)) throw error;
      if (error.code !== "decryption_failed")
        throw new StoreConfigError(
          error.code,
          `Subscription credentials in the store were encrypted with key ${id}, which is not configured: ` +
            "set the encryption key they were written with (or add it to the previous encryption keys).",
          { cause: error },
        );
    }
    checked.add(id);
    return "";
  };
  if (!options.checkEncryptionKeys) return openBackend(options, resolved, box);
  const store = await openBackend(options, resolved, {
    encrypting: box.encrypting,
    seal: (plain, aad) => box.seal(plain, aad),
    open: (stored, aad) => open(stored, aad),
  });
  try {
    await store.subscriptions.list();
    await store.destinations.list();
  } catch (error) {
    await store.close();
    throw error;
  }
  open = (stored, aad) => box.open(stored, aad);
  return store;
}

const SEALED = "enc:v1:";

async function openBackend(
  options: OpenStoreOptions,
  resolved: ResolvedOptions,
  box: SecretBox,
): Promise<Store> {
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
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme !== undefined && !/^(sqlite|file)$/i.test(scheme)) {
    // Not taken as a file path: a typo (postgress://) would create a directory named after the URL, password included.
    throw new StoreInputError(
      "invalid_url",
      `The database URL scheme '${scheme.slice(0, 20)}' is not supported: use a SQLite file path, ":memory:", sqlite:<path>, file:<path> or postgres://….`,
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
