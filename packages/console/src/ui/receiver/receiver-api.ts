// The receiver's admin endpoints (apps/receiver/src/admin.ts): GET /events, GET /events/stream, GET /event-types,
// and /readyz, read by hand below (they are not in a route table); and the destinations API, called through
// @plant-store/admin-api's typed client of `receiverRoutes` — the table the receiver registers and validates with.
// Where an answer is the sender's too — the catalog entries of /event-types, app-kit's /readyz — its type comes
// from admin-api.
import {
  type AdminAnswer,
  type AdminResult,
  createReceiverAdminClient,
  type ReceiverAnswer,
  type ReceiverOperationId,
  type ReceiverRequest,
} from "@plant-store/admin-api";
import { ApiError, type EventType, type Health, healthOf, UNREACHABLE } from "../api.js";
import { parseKeepingRaw, rawOf } from "../raw-json.js";
import { readEventStream } from "./event-stream.js";

/** A stored event; `payload` is the exact JSON text received (int64 ids keep every digit). */
export interface ReceivedEvent {
  seq: number;
  /** Its event type (an operationId of the document the receiver serves). */
  type: string;
  webhookId: string;
  receivedAt: string;
  processedAt: string | null;
  headers: Record<string, string>;
  payload: string;
}

/** A page of `GET /events`, newest first. */
export interface EventPage {
  data: ReceivedEvent[];
  nextCursor: string | null;
}

/** What an error body says, or a sentence for an answer without one. */
async function failure(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === "string") return new ApiError(response.status, body.message);
  } catch {
    // not JSON: described below
  }
  return new ApiError(
    response.status,
    `The receiver answered ${response.status} ${response.statusText}.`.trim(),
  );
}

function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function withRawPayload(event: ReceivedEvent): ReceivedEvent {
  return { ...event, payload: rawOf(event, "payload") ?? "" };
}

/** The answer, or the {@link ApiError} that says in words why there is none. */
function answerOf<T>(result: AdminResult<T>): T {
  if (result.ok) return result.value;
  if (result.kind === "status")
    throw new ApiError(result.status, result.message || `The receiver answered ${result.status}.`);
  if (result.kind === "unreachable") throw new ApiError(0, UNREACHABLE);
  return failWith(result.status, `The receiver answered ${result.status} with something that is not JSON.`);
}

function failWith(status: number, message: string): never {
  throw new ApiError(status, message);
}

/** A destination with its queue, as `GET /destinations` lists it. */
export type Destination = ReceiverAnswer<"getDestination">;
/** An event's forwards, each with its attempts. */
export type EventForwards = ReceiverAnswer<"listEventForwards">;

/** How long the stream waits before it connects again after a drop. */
const RECONNECT_MS = 2000;

/** The GET of an admin endpoint with the token; its text, or the {@link ApiError} that says why not. */
async function get(token: string, path: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(path, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  if (!response.ok) throw await failure(response);
  return response.text();
}

async function events(
  token: string,
  filter: { limit?: number; cursor?: string | null; type?: string },
): Promise<EventPage> {
  const parsed = parseKeepingRaw(await get(token, `/events${query(filter)}`)) as EventPage;
  return { data: parsed.data.map(withRawPayload), nextCursor: parsed.nextCursor };
}

async function eventTypes(token: string): Promise<EventType[]> {
  return (JSON.parse(await get(token, "/event-types")) as AdminAnswer<"listEventTypes">).data;
}

async function health(): Promise<Health> {
  const response = await fetch("/readyz", { cache: "no-store" }).catch(() => null);
  if (!response) return healthOf(new ApiError(0, UNREACHABLE));
  if (!response.ok) return healthOf(await failure(response));
  return healthOf((await response.json()) as AdminAnswer<"ready">);
}

/** What {@link stream} follows, from where, and whom it tells. */
export interface StreamOptions {
  after: number | null;
  signal: AbortSignal;
  onEvent: (event: ReceivedEvent) => void;
  onState: (state: "live" | "reconnecting", why?: string) => void;
}

/**
 * One connection to `/events/stream`, read until it ends; `position.after` follows each event it brings, so a
 * connection that drops mid-way is resumed after the last event seen.
 */
async function followOnce(token: string, position: { after: number | null }, options: StreamOptions) {
  const response = await fetch(`/events/stream${query({ after: position.after })}`, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
    signal: options.signal,
    cache: "no-store",
  });
  if (!response.ok || !response.body) throw await failure(response);
  options.onState("live");
  await readEventStream(response.body, (data) => {
    const event = withRawPayload(parseKeepingRaw(data) as ReceivedEvent);
    position.after = event.seq;
    options.onEvent(event);
  });
}

/** Follows the stream, resuming after the last event seen when it drops; a 401 or 404 ends it with that error. */
async function stream(token: string, options: StreamOptions): Promise<void> {
  const position = { after: options.after };
  while (!options.signal.aborted) {
    try {
      await followOnce(token, position, options);
      options.onState("reconnecting", "The stream ended.");
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof ApiError && (error.status === 401 || error.status === 404)) throw error;
      options.onState("reconnecting", (error as Error).message);
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

/**
 * The admin endpoints of the receiver this page came from, authorized with `token` (Authorization header only).
 *
 * @example
 * ```ts
 * const api = createReceiverApi("psk_…");
 * const { data } = await api.events({ limit: 25, type: "plantSold" });
 * ```
 */
export function createReceiverApi(token: string) {
  const client = createReceiverAdminClient({ baseUrl: location.origin, token });
  return {
    /** One operation of the destinations API; a refusal throws an {@link ApiError} with the receiver's message. */
    call: async <Op extends ReceiverOperationId>(operation: Op, request: ReceiverRequest<Op>) =>
      answerOf(await client.call(operation, request)),
    /** A page of stored events, newest first; `type` keeps only that event type (filtered by the receiver). */
    events: (filter: { limit?: number; cursor?: string | null; type?: string }) => events(token, filter),
    /** The webhooks this receiver serves (its `--spec` document's, less those `--events` leaves out). */
    eventTypes: () => eventTypes(token),
    /** `/readyz` (public): whether the store takes writes, and why not. */
    health,
    /**
     * Follows `/events/stream` (with fetch: EventSource cannot send the Authorization header), resuming after the
     * last event seen when the connection drops, until `signal` aborts.
     */
    stream: (options: StreamOptions) => stream(token, options),
  };
}

export type ReceiverApi = ReturnType<typeof createReceiverApi>;
