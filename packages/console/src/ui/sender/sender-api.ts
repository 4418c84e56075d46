// The sender's admin API, through @plant-store/admin-api's typed client: the same route table the sender registers
// and validates with, and the CLI calls. Pages call operations by their id in that table, so a route renamed or
// removed there, or an answer's field changed, fails the console's type-check; a path changed there needs no edit.
import {
  type AdminAnswer,
  type AdminOperationId,
  type AdminRequest,
  type AdminResult,
  adminSchemas,
  createAdminClient,
} from "@plant-store/admin-api";
import { ApiError, type EventType, type Health, healthOf, UNREACHABLE } from "../api.js";
import { parseKeepingRaw, rawOf } from "../raw-json.js";

export type Subscription = AdminAnswer<"getSubscription">;
export type NewSubscription = AdminAnswer<"createSubscription">;
export type Delivery = AdminAnswer<"getDelivery">;
export type Application = AdminAnswer<"getApplication">;
export type PortalLink = AdminAnswer<"createPortalLink">;
export type Session = AdminAnswer<"getSession">;
export type Attempt = AdminAnswer<"listAttempts">["data"][number];
/** A published message, its payload as the exact JSON text published (int64 ids keep every digit). */
export type Message = Omit<AdminAnswer<"getMessage">, "payload"> & { payload: string };

/** The states `GET /deliveries?state=` takes: the route's own schema says which. */
export const DELIVERY_STATES = adminSchemas.ListDeliveriesQuery.shape.state.unwrap().options;
/** One of {@link DELIVERY_STATES}. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The answer, or the {@link ApiError} that says in words why there is none. */
function answerOf<T>(result: AdminResult<T>): T {
  if (result.ok) return result.value;
  switch (result.kind) {
    case "status":
      throw new ApiError(
        result.status,
        result.message || `The sender answered ${result.status}.`,
        (result.body as { problems?: ApiError["problems"] } | null)?.problems ?? [],
      );
    case "unreachable":
      throw new ApiError(0, UNREACHABLE);
    case "not-json":
      throw new ApiError(
        result.status,
        `The sender answered ${result.status} with something that is not JSON.`,
      );
    case "redirect":
      throw new ApiError(
        result.status,
        `The sender answered a redirect (${result.status}); it is not followed.`,
      );
  }
}

/**
 * The admin API of the sender this page came from, authorized with `token` (sent in the Authorization header only).
 *
 * @example
 * ```ts
 * const api = createSenderApi("psk_…");
 * const { data } = await api.call("listDeliveries", { query: { state: "failed" } });
 * ```
 */
export function createSenderApi(token: string) {
  const baseUrl = location.origin;
  const client = createAdminClient({ baseUrl, token });
  // Only a message's payload needs every digit: the other answers are read with JSON.parse.
  const exact = createAdminClient({ baseUrl, token, parse: parseKeepingRaw });
  return {
    /** One operation of the admin API; a refusal throws an {@link ApiError} with the sender's message. */
    call: async <Op extends AdminOperationId>(operation: Op, request: AdminRequest<Op>) =>
      answerOf(await client.call(operation, request)),
    /** A published message, with its payload's exact JSON text. */
    async message(id: string): Promise<Message> {
      const found = answerOf(await exact.call("getMessage", { params: { id } }));
      return { ...found, payload: rawOf(found, "payload") ?? "" };
    },
    /** The event types this sender publishes (its `--spec` document's webhooks). */
    eventTypes: async (): Promise<EventType[]> => answerOf(await client.call("listEventTypes", {})).data,
    /** `/readyz`: whether the store takes writes, and why not. */
    async health(): Promise<Health> {
      try {
        return healthOf(answerOf(await client.call("ready", {})));
      } catch (error) {
        return healthOf(error as ApiError);
      }
    },
  };
}

export type SenderApi = ReturnType<typeof createSenderApi>;
