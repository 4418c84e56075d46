import { MAX_BATCH_EVENTS } from "@plant-store/core";
import type { z } from "zod";
import * as a from "./application-schemas.js";
import { MAX_BATCH_BODY_BYTES } from "./defaults.js";
import * as s from "./schemas.js";

/** The answer a route gives when it succeeds. */
export interface SuccessAnswer {
  status: 200 | 201 | 202;
  description: string;
  schema: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
}

/** One route of the admin API: everything the server validates, the document says and the client types. */
export interface AdminRoute {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI path template, e.g. `/subscriptions/{id}`. */
  path: string;
  tag:
    | "applications"
    | "subscriptions"
    | "events"
    | "deliveries"
    | "operations"
    | "destinations"
    | "forwards";
  summary: string;
  description?: string;
  /** Whether an admin bearer token is needed. Default true. */
  auth?: false;
  /**
   * Whether a portal token (one application's) may call it: then every resource it reads or changes is that
   * application's, and another's answers 404 as one that does not exist. Any other route answers 403 to it.
   */
  portal?: true;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers (lower-case names); each may be given on one header line only. */
  headers?: z.ZodObject;
  /**
   * `raw`: the JSON text is passed on as received (not parsed into an object). `lossless`: parsed with int64
   * integers kept exact (as `bigint`), and every problem the schema finds answers 422 with its JSON pointer (an
   * array over its maximum answers 413). `limit`: this route's body cap in bytes, instead of the sender's.
   */
  body?: {
    schema: z.ZodType;
    required: boolean;
    raw?: true;
    lossless?: true;
    limit?: number;
    description?: string;
  };
  ok: SuccessAnswer;
  /** Error statuses particular to this route, with what they mean (the common ones are added for every route). */
  errors?: Partial<Record<400 | 403 | 404 | 409 | 413 | 415 | 422 | 503, string>>;
}

/**
 * Every route of the sender's admin API, keyed by operation id. The sender registers exactly these (and validates
 * requests with their schemas), `buildAdminOpenApi()` documents exactly these, and `createAdminClient` calls them by
 * operation id — so a route removed here breaks the client's callers at type-check time.
 *
 * @example
 * ```ts
 * import { adminRoutes } from "@plant-store/admin-api";
 * adminRoutes.getDelivery.path; // "/deliveries/{id}"
 * ```
 */
export const adminRoutes = {
  createApplication: {
    method: "POST",
    path: "/applications",
    tag: "applications",
    summary: "Create an application (one customer)",
    body: { schema: a.ApplicationInput, required: true },
    ok: { status: 201, description: "Created.", schema: a.Application },
    errors: { 409: "Another application has this uid." },
  },
  listApplications: {
    method: "GET",
    path: "/applications",
    tag: "applications",
    summary: "List applications",
    ok: { status: 200, description: "Every application, in creation order.", schema: a.ApplicationPage },
  },
  getApplication: {
    method: "GET",
    path: "/applications/{id}",
    tag: "applications",
    summary: "Get an application",
    params: a.ApplicationParams,
    ok: { status: 200, description: "The application.", schema: a.Application },
    errors: { 404: "No such application." },
  },
  updateApplication: {
    method: "PATCH",
    path: "/applications/{id}",
    tag: "applications",
    summary: "Change an application's uid, name or metadata",
    params: a.ApplicationParams,
    body: { schema: a.ApplicationUpdate, required: true },
    ok: { status: 200, description: "Updated.", schema: a.Application },
    errors: { 404: "No such application.", 409: "Another application has this uid." },
  },
  deleteApplication: {
    method: "DELETE",
    path: "/applications/{id}",
    tag: "applications",
    summary: "Delete an application with its subscriptions",
    description:
      "Its subscriptions go with it, with their deliveries (pending ones stop) and attempts, and its portal links stop working; the deletion is recorded. The default application cannot be deleted.",
    params: a.ApplicationParams,
    ok: { status: 200, description: "Deleted.", schema: a.ApplicationDeleted },
    errors: { 404: "No such application.", 409: "The default application cannot be deleted." },
  },
  createPortalLink: {
    method: "POST",
    path: "/applications/{id}/portal-link",
    tag: "applications",
    summary: "A link to the console for this application's customer",
    description:
      "The token in the link sees and changes only this application's subscriptions, deliveries and attempts, until it expires (default one hour, at most a day) or the application's links are revoked. It is stored only as a hash.",
    params: a.ApplicationParams,
    body: { schema: a.PortalLinkInput, required: false },
    ok: { status: 201, description: "The link and its token, shown once.", schema: a.PortalLink },
    errors: { 404: "No such application." },
  },
  revokePortalLinks: {
    method: "POST",
    path: "/applications/{id}/portal-link/revoke",
    tag: "applications",
    summary: "Revoke every portal link of this application handed out so far",
    params: a.ApplicationParams,
    ok: { status: 200, description: "Revoked.", schema: a.PortalLinksRevoked },
    errors: { 404: "No such application." },
  },
  getSession: {
    portal: true,
    method: "GET",
    path: "/session",
    tag: "operations",
    summary: "Who the bearer token speaks for",
    description: "The operator, or one application's portal (with its expiry).",
    ok: { status: 200, description: "The session.", schema: a.Session },
  },
  createSubscription: {
    portal: true,
    method: "POST",
    path: "/subscriptions",
    tag: "subscriptions",
    summary: "Create a subscription",
    description:
      "The URL is checked by the SSRF guard. `token` and `secret` are generated when omitted and returned only in this response.",
    body: { schema: s.SubscriptionInput, required: true },
    ok: { status: 201, description: "Created.", schema: s.SubscriptionWithCredentials },
  },
  listSubscriptions: {
    portal: true,
    method: "GET",
    path: "/subscriptions",
    tag: "subscriptions",
    summary: "List subscriptions",
    query: s.ListSubscriptionsQuery,
    ok: { status: 200, description: "Subscriptions.", schema: s.SubscriptionPage },
  },
  getSubscription: {
    portal: true,
    method: "GET",
    path: "/subscriptions/{id}",
    tag: "subscriptions",
    summary: "Get a subscription",
    params: s.SubscriptionParams,
    ok: { status: 200, description: "The subscription.", schema: s.Subscription },
    errors: { 404: "No such subscription." },
  },
  updateSubscription: {
    portal: true,
    method: "PATCH",
    path: "/subscriptions/{id}",
    tag: "subscriptions",
    summary: "Change the URL, the event types, the signing scheme or the endpoint options",
    params: s.SubscriptionParams,
    body: { schema: s.SubscriptionUpdate, required: true },
    ok: { status: 200, description: "Updated.", schema: s.Subscription },
    errors: { 404: "No such subscription." },
  },
  deleteSubscription: {
    portal: true,
    method: "DELETE",
    path: "/subscriptions/{id}",
    tag: "subscriptions",
    summary: "Delete a subscription",
    description:
      "Its pending deliveries go with it (published messages stay: other subscriptions deliver them); an attempt already in flight may still arrive once, and its outcome is not recorded. To keep the history, disable it instead.",
    params: s.SubscriptionParams,
    ok: { status: 200, description: "Deleted.", schema: s.Deleted },
    errors: { 404: "No such subscription." },
  },
  disableSubscription: {
    portal: true,
    method: "POST",
    path: "/subscriptions/{id}/disable",
    tag: "subscriptions",
    summary: "Stop delivering to it",
    params: s.SubscriptionParams,
    body: { schema: s.DisableInput, required: false },
    ok: { status: 200, description: "Disabled.", schema: s.Subscription },
    errors: { 404: "No such subscription." },
  },
  enableSubscription: {
    portal: true,
    method: "POST",
    path: "/subscriptions/{id}/enable",
    tag: "subscriptions",
    summary: "Deliver to it again",
    params: s.SubscriptionParams,
    ok: { status: 200, description: "Enabled.", schema: s.Subscription },
    errors: { 404: "No such subscription." },
  },
  rotateCredential: {
    portal: true,
    method: "POST",
    path: "/subscriptions/{id}/rotate",
    tag: "subscriptions",
    summary: "Rotate the token or the signing secret",
    description:
      "A new secret signs from now on; the previous one keeps signing too (both signatures are sent) for `graceSeconds` (default 86400), so receivers can switch without a gap. A new token replaces the old at once: configure the receiver to accept both first.",
    params: s.SubscriptionParams,
    body: { schema: s.RotateInput, required: true },
    ok: { status: 200, description: "The new value, shown once.", schema: s.Rotated },
    errors: { 404: "No such subscription." },
  },
  recoverSubscription: {
    portal: true,
    method: "POST",
    path: "/subscriptions/{id}/recover",
    tag: "subscriptions",
    summary: "Requeue its failed deliveries since a time",
    params: s.SubscriptionParams,
    body: { schema: s.RecoverInput, required: true },
    ok: { status: 200, description: "How many were requeued.", schema: s.Recovered },
    errors: { 404: "No such subscription.", 409: "The subscription is disabled; enable it first." },
  },
  publishEvent: {
    method: "POST",
    path: "/events",
    tag: "events",
    summary: "Publish an event to every enabled subscription that receives its type",
    query: s.PublishQuery,
    headers: s.PublishHeaders,
    body: {
      schema: s.PublishBody,
      required: true,
      raw: true,
      description:
        "UTF-8 JSON (400 otherwise); the bytes are stored and sent exactly, except a leading byte order mark, which is dropped.",
    },
    ok: { status: 202, description: "Stored; deliveries are queued.", schema: s.Published },
    errors: {
      400: "The event type is not one of the contract's webhooks (the message lists them), or the body is not JSON.",
      409: "The Idempotency-Key was already used for a different event.",
      422: "The JSON does not match the event's schema; the message names each problem.",
    },
  },
  publishEvents: {
    method: "POST",
    path: "/events/batch",
    tag: "events",
    summary: "Publish a batch of events, all or nothing",
    description: `Up to ${MAX_BATCH_EVENTS} events in one transaction: either every event is stored (each fanned out as by POST /events) or, when any is refused, none is, and the 422 names every refused event by index and JSON pointer.`,
    body: {
      schema: s.PublishBatchInput,
      required: true,
      lossless: true,
      limit: MAX_BATCH_BODY_BYTES,
      description: `UTF-8 JSON of at most ${MAX_BATCH_BODY_BYTES} bytes; integers beyond 2^53 are kept exact.`,
    },
    ok: {
      status: 202,
      description: "Every event stored; deliveries are queued. One answer per event, in order.",
      schema: s.PublishedBatch,
    },
    errors: {
      413: `The body is over ${MAX_BATCH_BODY_BYTES} bytes, or holds more than ${MAX_BATCH_EVENTS} events: split it.`,
      422: "Events are refused (invalid JSON for their type, an unknown type, a bad or reused Idempotency key); nothing is stored; `problems` names each.",
    },
  },
  listEventTypes: {
    portal: true,
    method: "GET",
    path: "/event-types",
    tag: "events",
    summary: "The event types the sender publishes",
    description:
      "The webhooks of the document the sender runs with (`--spec`, else the built-in contract), as `@plant-store/spec`'s catalog entries: what `POST /events?type=` and a subscription's `eventTypes` take.",
    ok: { status: 200, description: "Every event type, in the document's order.", schema: s.EventTypeList },
  },
  getMessage: {
    portal: true,
    method: "GET",
    path: "/messages/{id}",
    tag: "events",
    summary: "A published message and its payload",
    params: s.MessageParams,
    ok: { status: 200, description: "The message.", schema: s.Message },
    errors: { 404: "No such message." },
  },
  listDeliveries: {
    portal: true,
    method: "GET",
    path: "/deliveries",
    tag: "deliveries",
    summary: "List deliveries, newest first",
    query: s.ListDeliveriesQuery,
    ok: { status: 200, description: "A page.", schema: s.DeliveryPage },
  },
  getDelivery: {
    portal: true,
    method: "GET",
    path: "/deliveries/{id}",
    tag: "deliveries",
    summary: "A delivery",
    params: s.DeliveryParams,
    ok: { status: 200, description: "The delivery.", schema: s.Delivery },
    errors: { 404: "No such delivery." },
  },
  listAttempts: {
    portal: true,
    method: "GET",
    path: "/deliveries/{id}/attempts",
    tag: "deliveries",
    summary: "Every attempt of a delivery",
    params: s.DeliveryParams,
    ok: { status: 200, description: "Attempts, oldest first.", schema: s.AttemptList },
    errors: { 404: "No such delivery." },
  },
  resendDelivery: {
    portal: true,
    method: "POST",
    path: "/deliveries/{id}/resend",
    tag: "deliveries",
    summary: "Send a delivered or failed delivery again, now",
    params: s.DeliveryParams,
    ok: { status: 200, description: "Queued.", schema: s.Delivery },
    errors: {
      404: "No such delivery.",
      409: "The delivery is still in flight, or its subscription is disabled.",
    },
  },
  health: {
    method: "GET",
    path: "/healthz",
    tag: "operations",
    summary: "The process is alive",
    auth: false,
    ok: { status: 200, description: "Alive.", schema: s.Health },
  },
  ready: {
    method: "GET",
    path: "/readyz",
    tag: "operations",
    summary: "The store can take a write",
    auth: false,
    ok: { status: 200, description: "Ready: the store can take a write.", schema: s.Ready },
    errors: { 503: "Not ready; the body names the store's code, the log says why." },
  },
  openapi: {
    method: "GET",
    path: "/openapi.json",
    tag: "operations",
    summary: "This document",
    auth: false,
    ok: { status: 200, description: "The admin API as OpenAPI 3.1.", schema: s.OpenApiDocument },
  },
  metrics: {
    method: "GET",
    path: "/metrics",
    tag: "operations",
    summary: "Prometheus metrics",
    auth: false,
    ok: {
      status: 200,
      description: "Prometheus text format.",
      schema: s.MetricsText,
      contentType: "text/plain",
    },
  },
} as const satisfies Record<string, AdminRoute>;

/** The operation ids of the admin API. */
export type AdminOperationId = keyof typeof adminRoutes;

/** A route table: every route of one app's admin API, keyed by operation id. */
export type RouteTable = Record<string, AdminRoute>;

type Field<R, K extends string> = R extends { [P in K]: infer T extends z.ZodType } ? T : never;

/** What a route of table `T` takes (parameters, query, headers, body), as a client sends it. */
export type RouteRequest<T extends RouteTable, Op extends keyof T> = (T[Op] extends { params: z.ZodType }
  ? { params: z.input<Field<T[Op], "params">> }
  : { params?: never }) &
  (T[Op] extends { query: z.ZodType } ? { query?: z.input<Field<T[Op], "query">> } : { query?: never }) &
  (T[Op] extends { headers: z.ZodType }
    ? { headers?: z.input<Field<T[Op], "headers">> }
    : { headers?: never }) &
  (T[Op] extends { body: { raw: true } }
    ? { body: string | Uint8Array }
    : T[Op] extends { body: { schema: infer B extends z.ZodType; required: true } }
      ? { body: z.input<B> }
      : T[Op] extends { body: { schema: infer B extends z.ZodType } }
        ? { body?: z.input<B> }
        : { body?: never });

/** What a route of table `T` answers when it succeeds, as a client receives it. */
export type RouteAnswer<T extends RouteTable, Op extends keyof T> = z.output<T[Op]["ok"]["schema"]>;

/** What a route of table `T` takes after validation, as the server's handler gets it. */
export interface RouteInput<T extends RouteTable, Op extends keyof T> {
  params: T[Op] extends { params: z.ZodType } ? z.output<Field<T[Op], "params">> : Record<string, never>;
  query: T[Op] extends { query: z.ZodType } ? z.output<Field<T[Op], "query">> : Record<string, never>;
  headers: T[Op] extends { headers: z.ZodType } ? z.output<Field<T[Op], "headers">> : Record<string, never>;
  body: T[Op] extends { body: { schema: infer B extends z.ZodType } } ? z.output<B> : undefined;
}

/** What a handler of a route of table `T` answers on success, before serialization. */
export type RouteReply<T extends RouteTable, Op extends keyof T> = z.input<T[Op]["ok"]["schema"]>;

type Routes = typeof adminRoutes;

/** What a sender route's parameters, query, headers and body take, as the client sends them. */
export type AdminRequest<Op extends AdminOperationId> = RouteRequest<Routes, Op>;

/** What a sender route answers when it succeeds, as the client receives it. */
export type AdminAnswer<Op extends AdminOperationId> = RouteAnswer<Routes, Op>;

/** What a sender route takes after validation, as the sender's handler gets it. */
export type AdminInput<Op extends AdminOperationId> = RouteInput<Routes, Op>;

/** What a sender route's handler answers on success, before serialization. */
export type AdminReply<Op extends AdminOperationId> = RouteReply<Routes, Op>;
