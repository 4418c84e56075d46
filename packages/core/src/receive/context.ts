import type { WebhookEntry } from "@plant-store/spec";
import type { BearerCheck } from "../auth/index.js";
import type { Verifier } from "../signing/index.js";
import type { DedupStore, Logger, OnEventResult, ReceivedEvent } from "./types.js";

/** Where the served webhooks are accepted, and which one a request means. */
export interface Routes {
  /** The webhooks served, in order (the first is the fallback when a request names none). */
  readonly served: readonly WebhookEntry[];
  readonly fallback: WebhookEntry;
  readonly byType: ReadonlyMap<string, WebhookEntry>;
  /** path → webhook; null when one path (or any path) serves them all and only the header says which. */
  readonly byPath: ReadonlyMap<string, WebhookEntry> | null;
  /** The one path (a string), any path (null), or each webhook at its own (undefined). */
  readonly path: string | null | undefined;
  /** `POST /plant/webhook, …`: where webhooks go, for a 404's message. */
  readonly where: string;
}

/** How signatures are checked: not at all (`verify` null), or with keys decoded once. */
export interface SignatureRules {
  readonly verify: Verifier | null;
  readonly toleranceSeconds: number;
  readonly now: () => number;
  /** Every 401 carries a challenge (RFC 9110 §15.5.2), also when the token passed and the signature did not. */
  readonly challenge: { "www-authenticate": string };
}

/** A webhook-id whose dedup check → onEvent → add is running, with a promise made once another request waits. */
export interface InFlight {
  stored: Promise<boolean> | undefined;
  settle: (stored: boolean) => void;
}

/**
 * What one handler instance's stages read: its options, checked and decoded once when it is created, and its own
 * state (the content type last accepted, the webhook-ids in flight).
 */
export interface PipelineContext {
  readonly maxBodyBytes: number;
  readonly routes: Routes;
  readonly isJson: (contentType: string | null | undefined) => boolean;
  readonly checkBearer: (header: string | null | undefined) => BearerCheck | Promise<BearerCheck>;
  readonly signatures: SignatureRules;
  readonly mode: "safe" | "lossless";
  readonly onEvent: (event: ReceivedEvent) => OnEventResult | Promise<OnEventResult>;
  readonly dedup: DedupStore | undefined;
  readonly logger: Logger | undefined;
  readonly inFlight: Map<string, InFlight>;
}
