import { PORTAL_TTL_DEFAULT_MS, PORTAL_TTL_MAX_MS, PORTAL_TTL_MIN_MS, UID_PATTERN } from "@plant-store/core";
import { z } from "zod";

const dateTime = z.string().meta({ format: "date-time" });

const PORTAL_LINK_MAX_SECONDS = PORTAL_TTL_MAX_MS / 1000;
const PORTAL_LINK_MIN_SECONDS = PORTAL_TTL_MIN_MS / 1000;
const PORTAL_LINK_DEFAULT_SECONDS = PORTAL_TTL_DEFAULT_MS / 1000;

const UID_RULE = "uid must be 1 to 100 visible ASCII characters (no spaces), not starting with app_.";
const NAME_RULE = "name must be text of 1 to 200 characters.";
const METADATA_RULE =
  "metadata must be an object of at most 32 string values (keys 1 to 64 characters, values at most 1000).";
const TTL_RULE = `expiresInSeconds must be a whole number from ${PORTAL_LINK_MIN_SECONDS} to ${PORTAL_LINK_MAX_SECONDS}.`;

/** An application's uid: the operator's own id for the customer. */
export const applicationUid = z
  .string({ error: UID_RULE })
  .regex(UID_PATTERN, { error: UID_RULE })
  .refine((uid) => !uid.startsWith("app_"), { error: UID_RULE })
  .meta({ description: "The operator's own id for the customer (unique), e.g. its account id." });

/** A subscription's uid: unique within its application. */
export const subscriptionUid = z
  .string({ error: "uid must be 1 to 100 visible ASCII characters (no spaces)." })
  .regex(UID_PATTERN, { error: "uid must be 1 to 100 visible ASCII characters (no spaces)." })
  .meta({ description: "The operator's own id for the endpoint, unique within its application." });

/** String metadata, as Svix's and Stripe's. */
export const metadata = z
  .record(z.string().min(1).max(64), z.string().max(1000), { error: METADATA_RULE })
  .refine((value) => Object.keys(value).length <= 32, { error: METADATA_RULE })
  .meta({ description: "At most 32 string values of the operator's own." });

/** A subscription's description. */
export const description = z
  .string({ error: "description must be text of at most 500 characters." })
  .max(500, { error: "description must be text of at most 500 characters." });

/** Path parameters of `/applications/{id}…`: the id (`app_…`) or the uid. */
export const ApplicationParams = z.object({
  id: z.string().meta({ description: "Application id (`app_…`) or uid." }),
});

/** Query of `GET /applications`. */
export const ListApplicationsQuery = z.object({});

/** Body of `POST /applications`. */
export const ApplicationInput = z
  .object({
    uid: applicationUid,
    name: z.string({ error: NAME_RULE }).min(1, { error: NAME_RULE }).max(200, { error: NAME_RULE }),
    metadata: metadata.optional(),
  })
  .meta({ id: "ApplicationInput" });

/** Body of `PATCH /applications/{id}`. */
export const ApplicationUpdate = z
  .object({
    uid: applicationUid.optional(),
    name: z
      .string({ error: NAME_RULE })
      .min(1, { error: NAME_RULE })
      .max(200, { error: NAME_RULE })
      .optional(),
    metadata: metadata.optional(),
  })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), {
    error: "Send the fields to change: { uid, name, metadata }.",
  });

/** Body of `POST /applications/{id}/portal-link` (optional). */
export const PortalLinkInput = z.object({
  expiresInSeconds: z
    .int({ error: TTL_RULE })
    .min(PORTAL_LINK_MIN_SECONDS, { error: TTL_RULE })
    .max(PORTAL_LINK_MAX_SECONDS, { error: TTL_RULE })
    .optional()
    .meta({ description: `How long the link works; default ${PORTAL_LINK_DEFAULT_SECONDS} (one hour).` }),
});

/** An application: one customer and its subscriptions. */
export const Application = z
  .object({
    id: z.string(),
    uid: z.string(),
    name: z.string(),
    metadata: z.record(z.string(), z.string()),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: "Application" });

/** Every application, in creation order (`nextCursor` is always null today). */
export const ApplicationPage = z.object({ data: z.array(Application), nextCursor: z.string().nullable() });

/** What deleting an application answers. */
export const ApplicationDeleted = z.object({
  id: z.string(),
  deleted: z.literal(true),
  subscriptions: z.int().meta({ description: "Its subscriptions, deleted with it." }),
});

/** A portal link: the console's URL with the token in its fragment, and the token alone. */
export const PortalLink = z
  .object({
    url: z
      .string()
      .meta({ description: "The console, with `#token=…`: the token never reaches a server log." }),
    token: z.string().meta({ description: "A `pst_` bearer token for this application only, shown once." }),
    expiresAt: dateTime,
  })
  .meta({ id: "PortalLink" });

/** What revoking an application's portal links answers. */
export const PortalLinksRevoked = z.object({ id: z.string(), revoked: z.literal(true) });

/** `GET /session`: who the bearer token speaks for. */
export const Session = z
  .discriminatedUnion("role", [
    z.object({ role: z.literal("operator") }),
    z.object({
      role: z.literal("portal"),
      application: z.object({ id: z.string(), uid: z.string(), name: z.string() }),
      expiresAt: dateTime,
    }),
  ])
  .meta({ id: "Session" });
