import { z } from "zod";
import {
  Attempt,
  dateTime,
  deliveryProgress,
  eventTypesField,
  nullableDateTime,
  pageCursor,
  pageLimit,
  pageOf,
  rateLimitField,
  signingScheme,
  signingSecret,
  signingSecretCount,
  sinceDateTime,
  stateFilter,
  targetHeadersField,
  wholeNumberId,
} from "./schemas.js";

// The store judges a destination's values (its URL — http(s), no credentials, no metadata or link-local host —,
// name, headers and limits) and says which rule a value breaks; these schemas only check each field's JSON type, so
// every rule stays defined once, in the store. The receiver checks event types against the catalog it serves.

const name = z.string({ error: "name must be a string of 1 to 100 printable characters." });
const url = z.string({ error: "url must be the destination's http(s) URL, as a string." }).meta({
  description:
    "Where events are forwarded: http(s), no credentials; cloud metadata and link-local hosts are refused. Query values are redacted in logs.",
});
const signing = signingScheme.meta({
  description:
    "symmetric: v1 (HMAC, the destination's whsec_ secrets; default); asymmetric: v1a (ed25519, the receiver's --forward-private-key); both, while the service migrates.",
});
const ordered = z.boolean({ error: "ordered must be true or false." }).meta({
  description:
    "true: first in, first out in commit order (the head retries, later events wait); false: concurrent.",
});
const maxInFlight = z
  .int({ error: "maxInFlight must be a whole number, or null for the default." })
  .nullable()
  .meta({
    description: "Most forwards in flight at once (concurrent destinations); null = the worker's default.",
  });
const rateLimit = rateLimitField(
  "Most forwards started per second, across every receiver on the database; null = none.",
);
const headers = targetHeadersField(
  "Added to every forward (e.g. the service's own Authorization); replaces the whole set.",
);
const timeoutMs = z
  .int({ error: "timeoutMs must be a whole number of milliseconds, or null for the default." })
  .nullable()
  .meta({ description: "One attempt's budget; null = the worker's default." });

/** Path parameters of `/destinations/{id}…`. */
export const DestinationParams = z.object({
  id: z.string().meta({ description: "Destination id (`dst_…`)." }),
});

/** Path parameters of `/forwards/{id}…`: a whole number. */
export const ForwardParams = z.object({ id: wholeNumberId("Forward") });

/** Path parameters of `/events/{id}/forwards`. */
export const EventParams = z.object({
  id: z.string().meta({ description: "The event's `webhook-id`, as the provider sent it." }),
});

/** Query of `GET /destinations/{id}/forwards`. */
export const ListForwardsQuery = z.object({
  state: stateFilter,
  limit: pageLimit.optional(),
  cursor: pageCursor,
});

/** Body of `POST /destinations`. */
export const DestinationInput = z
  .object({
    name: name.meta({ description: "Unique among destinations, 1 to 100 printable characters." }),
    url,
    eventTypes: eventTypesField.optional(),
    secret: signingSecret("secret")
      .optional()
      .meta({ description: "`whsec_` signing secret of the forwards; generated when omitted." }),
    signing: signing.optional(),
    paused: z
      .boolean({ error: "paused must be true or false." })
      .optional()
      .meta({ description: "Start paused: events queue until it is resumed." }),
    ordered: ordered.optional(),
    maxInFlight: maxInFlight.optional(),
    rateLimit: rateLimit.optional(),
    headers: headers.optional(),
    timeoutMs: timeoutMs.optional(),
  })
  .meta({ id: "DestinationInput" });

/** Body of `PATCH /destinations/{id}`: the fields to change (`null` clears an optional one). */
export const DestinationUpdate = z
  .object({
    name: name.optional(),
    url: url.optional(),
    eventTypes: eventTypesField.optional(),
    signing: signing.optional(),
    ordered: ordered.optional(),
    maxInFlight: maxInFlight.optional(),
    rateLimit: rateLimit.optional(),
    headers: headers.optional(),
    timeoutMs: timeoutMs.optional(),
  })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), {
    error:
      "Send the fields to change: { name, url, eventTypes, signing, ordered, maxInFlight, rateLimit, headers, timeoutMs }.",
  });

/** Body of `POST /destinations/{id}/rotate-secret` (optional). */
export const RotateDestinationSecretInput = z.object({
  value: signingSecret("value").optional().meta({ description: "The new secret; generated when omitted." }),
  graceSeconds: z
    .int({ error: "graceSeconds must be a whole number of seconds." })
    .min(0, { error: "graceSeconds must be 0 or more." })
    .optional()
    .meta({ description: "How long the previous secrets keep signing (default 24 h, at most 7 days)." }),
});

/** Body of `POST /destinations/{id}/replay`: one event, everything since a time, or the failed ones. */
export const ReplayInput = z
  .object({
    eventId: z
      .string({ error: "eventId must be an event's webhook-id, as a string." })
      .min(1, { error: "eventId must not be empty." })
      .optional()
      .meta({ description: "Send this event (its `webhook-id`) to the destination again." }),
    since: sinceDateTime.optional().meta({
      format: "date-time",
      description:
        "Forwards created at or after it: every finished one (delivered or failed), or with `failed` the failed ones.",
    }),
    failed: z
      .literal(true, { error: "failed must be true, or left out." })
      .optional()
      .meta({ description: "Only the failed forwards (all of them, or those since `since`)." }),
  })
  .refine(
    (body) => (body.eventId !== undefined) !== (body.since !== undefined || body.failed !== undefined),
    {
      error: "Send one of { eventId }, { since }, { failed: true } or { failed: true, since }.",
    },
  )
  .meta({ id: "ReplayInput" });

// --- answers --------------------------------------------------------------------------------------------------

/** A destination, with its queue right now (its signing secret is read at `GET /destinations/{id}/secret`). */
export const Destination = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    eventTypes: z
      .array(z.string())
      .nullable()
      .meta({ description: "The event types it takes; null = every type." }),
    state: z
      .enum(["active", "paused", "disabled"])
      .meta({ description: "disabled: after a 410 (or by an operator); paused: its events queue." }),
    enabled: z.boolean(),
    paused: z.boolean(),
    disabledReason: z.string().nullable(),
    disabledAt: nullableDateTime,
    ordered: z.boolean(),
    maxInFlight: z.int().nullable(),
    rateLimit: z.number().nullable(),
    headerNames: z
      .array(z.string())
      .meta({ description: "The names of its headers (their values are not shown)." }),
    timeoutMs: z.int().nullable(),
    signing,
    signingSecrets: signingSecretCount,
    depth: z.int().meta({ description: "Forwards pending or in flight." }),
    oldestPendingAt: nullableDateTime.meta({ description: "Created time of the oldest unfinished forward." }),
    lagSeconds: z.number().meta({ description: "Age of the oldest unfinished forward; 0 when none." }),
    failed: z.int().meta({ description: "Forwards that failed (kept for replay)." }),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: "Destination" });

/** A new destination, with its signing secret shown. */
export const DestinationWithSecret = Destination.extend({ secret: z.string() }).meta({
  id: "DestinationWithSecret",
});

/** Every destination. */
export const DestinationList = pageOf(Destination);

/** A destination's current signing secret (as Svix's `GET /endpoints/{id}/secret`). */
export const DestinationSecret = z.object({
  secret: z.string().meta({ description: "The newest active `whsec_` secret: verify the forwards with it." }),
});

/** One event to one destination. */
export const Forward = z
  .object({
    id: z.int(),
    destinationId: z.string(),
    eventSeq: z
      .int()
      .meta({ description: "The event's sequence number in the inbox (`seq` of GET /events)." }),
    ...deliveryProgress,
    attempts: z.int().meta({ description: "Attempts in the current round (a replay starts a new round)." }),
  })
  .meta({ id: "Forward" });

/** A page of forwards, newest first. */
export const ForwardPage = pageOf(Forward);

/** An event's forwards, each with its attempts. */
export const EventForwards = z.object({
  eventId: z.string(),
  seq: z.int(),
  receivedAt: dateTime,
  processedAt: nullableDateTime,
  data: z.array(Forward.extend({ attemptLog: z.array(Attempt) })),
});

/** How many forwards a replay queued. */
export const Replayed = z.object({ requeued: z.int() });
