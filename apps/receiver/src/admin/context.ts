import type { Catalog } from "@plant-store/spec";
import type { Store } from "@plant-store/store";

/** What the destinations API's handlers are served with. */
export interface DestinationsContext {
  readonly store: Store;
  /** The webhooks the receiver serves: a destination's event types must be among them. */
  readonly catalog: Catalog;
  /** Whether the receiver holds ed25519 private keys: without, a destination may not sign v1a. */
  readonly canSignAsymmetric: boolean;
  readonly now?: () => number;
}

/** A `Date` as RFC 3339 text, `null` kept. */
export const iso = (at: Date | null): string | null => at?.toISOString() ?? null;
