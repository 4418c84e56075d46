import pg from "pg";
import type { StoreLogger } from "../options.js";
import { quoteIdent } from "./migrations.js";

/**
 * One dedicated connection that LISTENs on the store's channels, started on first use and
 * reconnected with backoff. After a reconnect it calls `onReconnect`: notifications sent while it
 * was away are lost, so everyone waiting should poll once.
 *
 * @example
 * ```ts
 * const listener = new PgListener(config, new Map([["ps_x_outbox", () => wake()]]), () => wake(), console);
 * await listener.start();
 * ```
 */
export class PgListener {
  readonly #config: pg.ClientConfig;
  readonly #handlers: ReadonlyMap<string, (payload: string) => void>;
  readonly #onReconnect: () => void;
  readonly #logger: StoreLogger;
  #client: pg.Client | undefined;
  #starting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #backoffMs = 100;
  #stopped = false;
  #connectedBefore = false;

  constructor(
    config: pg.ClientConfig,
    handlers: ReadonlyMap<string, (payload: string) => void>,
    onReconnect: () => void,
    logger: StoreLogger,
  ) {
    this.#config = config;
    this.#handlers = handlers;
    this.#onReconnect = onReconnect;
    this.#logger = logger;
  }

  /** Resolves once listening; rejects if this connection attempt fails (a retry is scheduled). */
  start(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#starting ??= this.#connect().catch((error: unknown) => {
      this.#starting = undefined;
      this.#retry();
      throw error;
    });
    return this.#starting;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await this.#starting?.catch(() => {});
    await (client ?? this.#client)?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ ...this.#config, keepAlive: true });
    const lost = (error?: Error) => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#starting = undefined;
      client.end().catch(() => {});
      if (!this.#stopped) {
        this.#logger.warn(
          `plant-store: LISTEN connection lost (${error?.message ?? "closed"}); reconnecting.`,
        );
        this.#retry();
      }
    };
    client.on("notification", (msg) => this.#handlers.get(msg.channel)?.(msg.payload ?? ""));
    client.on("error", lost);
    client.on("end", () => lost());
    try {
      await client.connect();
      for (const channel of this.#handlers.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.#stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#backoffMs = 100;
    if (this.#connectedBefore) this.#onReconnect();
    this.#connectedBefore = true;
  }

  #retry(): void {
    if (this.#stopped || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.start().catch(() => {});
    }, this.#backoffMs);
    this.#timer.unref();
    this.#backoffMs = Math.min(this.#backoffMs * 2, 10_000);
  }
}
