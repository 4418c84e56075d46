import { type OpenStoreOptions, openStore, type Store, StoreError } from "@plant-store/store";
import type { Logger } from "pino";

/** What an app is given as its store: an open one (the caller's to close), or what `openStore` accepts. */
export type StoreSetting = Store | string | OpenStoreOptions;

/** An app's store and whether the app opened it (and so closes it). */
export interface AppStore {
  store: Store;
  owned: boolean;
}

/**
 * Opens an app's store one way for every app: an open `Store` is used as is (`owned: false`); a URL or options are
 * opened with the app's logger (so the store's warnings — a lost idle connection, a world-readable file — become
 * JSON log lines like the rest) unless the options bring their own, and with `extra` (e.g. encryption keys) on top.
 * Nothing given: `:memory:`.
 *
 * @example
 * ```ts
 * const { store, owned } = await openAppStore(options.store, { logger });
 * // … on close: if (owned) await store.close();
 * ```
 */
export async function openAppStore(
  setting: StoreSetting | undefined,
  options: { logger?: Logger | undefined; extra?: Partial<OpenStoreOptions> } = {},
): Promise<AppStore> {
  if (isStore(setting)) return { store: setting, owned: false };
  const given: OpenStoreOptions = typeof setting === "object" ? setting : { url: setting ?? ":memory:" };
  const store = await openStore({
    ...(options.logger && !given.logger && { logger: options.logger }),
    ...given,
    ...options.extra,
  });
  return { store, owned: true };
}

function isStore(value: StoreSetting | undefined): value is Store {
  return typeof value === "object" && value !== null && "outbox" in value && "inbox" in value;
}

/** The answer of a readiness probe: 200 `{ status: "ready", backend }`, or 503 `{ error, message }`. */
export type Readiness =
  | { status: 200; body: { status: "ready"; backend: Store["backend"] } }
  | { status: 503; body: { error: 503; message: string } };

/**
 * The readiness probe (`GET /readyz`) of every app: ready when the store can take a write now (`store.ping()`).
 * When it cannot, the answer names only the store's code; the details (a path, a host) go to the log, not to
 * whoever asks.
 *
 * @example
 * ```ts
 * const { status, body } = await readiness(store, { app: "receiver", logger });
 * res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
 * ```
 */
export async function readiness(
  store: Store,
  options: { app: string; logger?: Logger | undefined },
): Promise<Readiness> {
  try {
    await store.ping();
    return { status: 200, body: { status: "ready", backend: store.backend } };
  } catch (error) {
    const code = error instanceof StoreError ? error.code : "store_error";
    options.logger?.warn({ code, error: (error as Error)?.message }, "not ready");
    return {
      status: 503,
      body: {
        error: 503,
        message: `Not ready (${code}): the store cannot safely take writes right now. The ${options.app}'s log says why.`,
      },
    };
  }
}
