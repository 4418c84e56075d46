import { createHash } from "node:crypto";
import {
  createGuardedFetch,
  parseAllowList,
  refuseMetadataNetworks,
  startWorker,
  type WorkerMetrics,
} from "@plant-store/app-kit";
import { publicKeyOf, type SigningScheme } from "@plant-store/core";
import { checkDestinationUrl, type Destination, type Store } from "@plant-store/store";
import type { Logger } from "pino";

/** Longest destination name; a longer URL is named by its start and a digest of the whole. */
const MAX_NAME = 100;

/**
 * A `--forward-to` URL checked with the store's destination rule (http(s), no credentials, never a metadata or
 * link-local address); throws the rule's message.
 *
 * @example
 * ```ts
 * checkForwardUrl("http://orders.internal/hooks"); // "http://orders.internal/hooks"
 * ```
 */
export function checkForwardUrl(url: string): string {
  return checkDestinationUrl(url);
}

/**
 * The name a `--forward-to` URL's destination gets: the URL itself, or its start and a digest when it is long, so
 * the same URL finds the same destination at every start.
 *
 * @example
 * ```ts
 * destinationName("http://orders.internal/hooks"); // "http://orders.internal/hooks"
 * ```
 */
export function destinationName(url: string): string {
  const href = checkDestinationUrl(url);
  if (href.length <= MAX_NAME) return href;
  const digest = createHash("sha256").update(href).digest("hex").slice(0, 16);
  return `${href.slice(0, MAX_NAME - digest.length - 1)}~${digest}`;
}

/** Options of {@link startForwarding}. */
export interface ForwardingOptions {
  store: Store;
  /** `--forward-to`: destinations created or updated by URL before the worker starts. */
  forwardTo?: readonly string[] | undefined;
  /** `--forward-secret`: their signing secret (default: a generated one, kept in the store). */
  forwardSecret?: string | undefined;
  /** `--forward-signing`: how they sign (default: as stored; new ones `symmetric`). */
  forwardSigning?: SigningScheme | undefined;
  /** `--forward-private-key`: `whsk_` keys for destinations that sign v1a. */
  privateKeys?: readonly string[] | undefined;
  schedule?: readonly number[] | undefined;
  /** CIDRs of private networks destinations may be in. */
  allowNetworks?: readonly string[] | undefined;
  /** Forwards in flight in all. Default 64. */
  concurrency?: number | undefined;
  /** Per attempt (a destination's own `timeoutMs` may shorten it). Default 15 s. */
  timeoutMs?: number | undefined;
  metrics?: WorkerMetrics | undefined;
  logger?: Logger | undefined;
}

/** The receiver's delivery worker for its destinations. */
export interface Forwarding {
  /** The `--forward-to` destinations, as ensured at start. */
  readonly destinations: readonly Destination[];
  /** Stops claiming; in-flight forwards finish (each bounded by its timeout). */
  stop(): Promise<void>;
}

/**
 * Ensures the `--forward-to` destinations, then runs the shared delivery worker (app-kit's, the sender's engine) on
 * the store's destinations: claims with scope `receiver`, sends through the SSRF guard with the operator's allow-list.
 *
 * @example
 * ```ts
 * const forwarding = await startForwarding({ store, forwardTo: ["http://orders.internal/hooks"] });
 * await forwarding.stop();
 * ```
 */
export async function startForwarding(options: ForwardingOptions): Promise<Forwarding> {
  const { store } = options;
  // A damaged key stops the start here, not every v1a forward later.
  for (const key of options.privateKeys ?? []) await publicKeyOf(key);
  const destinations: Destination[] = [];
  for (const url of options.forwardTo ?? []) {
    destinations.push(
      await store.destinations.ensure({
        name: destinationName(url),
        url,
        ...(options.forwardSecret !== undefined && { secret: options.forwardSecret }),
        ...(options.forwardSigning !== undefined && { signing: options.forwardSigning }),
      }),
    );
  }
  const allow = refuseMetadataNetworks(parseAllowList(options.allowNetworks ?? []));
  const guard = createGuardedFetch({
    allow,
    ...(options.concurrency && { connections: options.concurrency }),
  });
  const worker = startWorker({
    store,
    scope: "receiver",
    transport: guard.transport,
    workerId: `receiver-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.logger && { logger: options.logger }),
    ...(options.schedule && { schedule: options.schedule }),
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.privateKeys && options.privateKeys.length > 0 && { privateKeys: options.privateKeys }),
  });
  return {
    destinations,
    async stop() {
      await worker.stop();
      await guard.close();
    },
  };
}
