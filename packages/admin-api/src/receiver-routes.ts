import { buildRouteOpenApi } from "./openapi.js";
import * as r from "./receiver-schemas.js";
import type { AdminRoute, RouteAnswer, RouteInput, RouteReply, RouteRequest } from "./routes.js";
import * as s from "./schemas.js";

const NO_DESTINATION = "No such destination.";

/**
 * Every route of the receiver's destinations API (on the receiver's port, behind its admin tokens), keyed by
 * operation id: the receiver registers and validates exactly these, `buildReceiverOpenApi()` documents them and
 * `createReceiverAdminClient` calls them — as `adminRoutes` is for the sender.
 *
 * @example
 * ```ts
 * import { receiverRoutes } from "@plant-store/admin-api";
 * receiverRoutes.replayDestination.path; // "/destinations/{id}/replay"
 * ```
 */
export const receiverRoutes = {
  createDestination: {
    method: "POST",
    path: "/destinations",
    tag: "destinations",
    summary: "Create a destination",
    description:
      "Accepted events of its types are forwarded to it from now on, committed with the event. The signing secret is generated when omitted.",
    body: { schema: r.DestinationInput, required: true },
    ok: { status: 201, description: "Created.", schema: r.DestinationWithSecret },
    errors: {
      400: "A value breaks a rule (the message says which): a URL that is not http(s), carries credentials or names a metadata or link-local host; an event type the receiver does not serve (the message lists those it does).",
      409: "The name is taken.",
    },
  },
  listDestinations: {
    method: "GET",
    path: "/destinations",
    tag: "destinations",
    summary: "List destinations with their queues",
    ok: { status: 200, description: "Every destination, in creation order.", schema: r.DestinationList },
  },
  getDestination: {
    method: "GET",
    path: "/destinations/{id}",
    tag: "destinations",
    summary: "Get a destination",
    params: r.DestinationParams,
    ok: { status: 200, description: "The destination.", schema: r.Destination },
    errors: { 404: NO_DESTINATION },
  },
  updateDestination: {
    method: "PATCH",
    path: "/destinations/{id}",
    tag: "destinations",
    summary: "Change a destination",
    params: r.DestinationParams,
    body: { schema: r.DestinationUpdate, required: true },
    ok: { status: 200, description: "Updated.", schema: r.Destination },
    errors: { 404: NO_DESTINATION, 409: "The name is taken." },
  },
  deleteDestination: {
    method: "DELETE",
    path: "/destinations/{id}",
    tag: "destinations",
    summary: "Delete a destination with its forwards",
    description: "A forward already in flight may still arrive once. To keep its queue, pause it instead.",
    params: r.DestinationParams,
    ok: { status: 200, description: "Deleted.", schema: s.Deleted },
    errors: { 404: NO_DESTINATION },
  },
  pauseDestination: {
    method: "POST",
    path: "/destinations/{id}/pause",
    tag: "destinations",
    summary: "Pause: events queue (e.g. during a deploy)",
    params: r.DestinationParams,
    ok: { status: 200, description: "Paused.", schema: r.Destination },
    errors: { 404: NO_DESTINATION },
  },
  resumeDestination: {
    method: "POST",
    path: "/destinations/{id}/resume",
    tag: "destinations",
    summary: "Resume: the queue drains in order",
    params: r.DestinationParams,
    ok: { status: 200, description: "Resumed.", schema: r.Destination },
    errors: { 404: NO_DESTINATION },
  },
  enableDestination: {
    method: "POST",
    path: "/destinations/{id}/enable",
    tag: "destinations",
    summary: "Take events again after a 410 disabled it",
    description: "Its failed forwards stay failed: replay them with `POST /destinations/{id}/replay`.",
    params: r.DestinationParams,
    ok: { status: 200, description: "Enabled.", schema: r.Destination },
    errors: { 404: NO_DESTINATION },
  },
  rotateDestinationSecret: {
    method: "POST",
    path: "/destinations/{id}/rotate-secret",
    tag: "destinations",
    summary: "Rotate the signing secret",
    description:
      "The new secret signs from now on; the previous ones keep signing too (both signatures are sent) for `graceSeconds`, so the service can switch without a gap.",
    params: r.DestinationParams,
    body: { schema: r.RotateDestinationSecretInput, required: false },
    ok: { status: 200, description: "The new secret.", schema: r.DestinationSecret },
    errors: { 404: NO_DESTINATION },
  },
  getDestinationSecret: {
    method: "GET",
    path: "/destinations/{id}/secret",
    tag: "destinations",
    summary: "The signing secret the service verifies with",
    params: r.DestinationParams,
    ok: { status: 200, description: "The newest active secret.", schema: r.DestinationSecret },
    errors: { 404: NO_DESTINATION },
  },
  replayDestination: {
    method: "POST",
    path: "/destinations/{id}/replay",
    tag: "destinations",
    summary: "Send events to it again: one event, every one since a time, or the failed ones",
    params: r.DestinationParams,
    body: { schema: r.ReplayInput, required: true },
    ok: { status: 200, description: "How many forwards were queued.", schema: r.Replayed },
    errors: {
      404: "No such destination, or (by eventId) no forward of that event to it.",
      409: "The destination is disabled (enable it first), or the forward is in flight.",
    },
  },
  listForwards: {
    method: "GET",
    path: "/destinations/{id}/forwards",
    tag: "forwards",
    summary: "A destination's forwards, newest first",
    params: r.DestinationParams,
    query: r.ListForwardsQuery,
    ok: { status: 200, description: "A page.", schema: r.ForwardPage },
    errors: { 404: NO_DESTINATION },
  },
  listForwardAttempts: {
    method: "GET",
    path: "/forwards/{id}/attempts",
    tag: "forwards",
    summary: "Every attempt of a forward",
    params: r.ForwardParams,
    ok: { status: 200, description: "Attempts, oldest first.", schema: s.AttemptList },
    errors: { 404: "No such forward." },
  },
  listEventForwards: {
    method: "GET",
    path: "/events/{id}/forwards",
    tag: "forwards",
    summary: "An event's forwards, each with its attempts",
    params: r.EventParams,
    ok: { status: 200, description: "Its forwards, one per destination.", schema: r.EventForwards },
    errors: { 404: "No such event." },
  },
} as const satisfies Record<string, AdminRoute>;

/** The operation ids of the receiver's admin API. */
export type ReceiverOperationId = keyof typeof receiverRoutes;
type Routes = typeof receiverRoutes;
/** What a receiver route takes, as the client sends it. */
export type ReceiverRequest<Op extends ReceiverOperationId> = RouteRequest<Routes, Op>;
/** What a receiver route answers, as the client receives it. */
export type ReceiverAnswer<Op extends ReceiverOperationId> = RouteAnswer<Routes, Op>;
/** What a receiver route takes after validation, as the receiver's handler gets it. */
export type ReceiverInput<Op extends ReceiverOperationId> = RouteInput<Routes, Op>;
/** What a receiver route's handler answers, before serialization. */
export type ReceiverReply<Op extends ReceiverOperationId> = RouteReply<Routes, Op>;

/**
 * The receiver's destinations API as an OpenAPI 3.1 document, generated from {@link receiverRoutes}; committed as
 * `apps/receiver/openapi.json` (a test fails when that file is stale).
 *
 * @example
 * ```ts
 * Object.keys(buildReceiverOpenApi().paths); // ["/destinations", "/destinations/{id}", …]
 * ```
 */
export function buildReceiverOpenApi(): Record<string, unknown> {
  return buildRouteOpenApi(receiverRoutes, {
    info: {
      title: "Plant Store receiver admin API: destinations",
      description:
        "Where the receiver hands its accepted events on: destinations, their forwards and attempts, replay. Served on the receiver's port behind its admin tokens. Every error is `{ error, message }`. Generated from the zod schemas of `@plant-store/admin-api`.",
    },
    server: "http://127.0.0.1:4000",
    tags: [
      { name: "destinations", description: "Where accepted events are forwarded." },
      { name: "forwards", description: "One event to one destination, and its attempts." },
    ],
  });
}
