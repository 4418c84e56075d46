// Every request the console makes, in one module: the pages call these functions only, so they can be moved onto
// the admin API's typed client (issue 21) without touching a page.
import { parseKeepingRaw, rawOf } from "./raw-json.js";

/** An answer other than 2xx, with the app's `{ error, message }` text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type DeliveryState = "pending" | "leased" | "delivered" | "failed";
export const DELIVERY_STATES: readonly DeliveryState[] = ["pending", "leased", "delivered", "failed"];

export interface Subscription {
  id: string;
  url: string;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  failingSince: string | null;
  signingSecrets: number;
  createdAt: string;
  updatedAt: string;
}
export interface Delivery {
  id: number;
  messageId: string;
  subscriptionId: string;
  state: DeliveryState;
  attempts: number;
  dueAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}
export interface Attempt {
  attempt: number;
  attemptedAt: string;
  status: number | null;
  latencyMs: number | null;
  responseBody: string | null;
  error: string | null;
}
export interface Message {
  id: string;
  idempotencyKey: string | null;
  createdAt: string;
  /** The payload's exact JSON text. */
  payload: string;
}
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
/** A receiver event; `payload` is the exact JSON text received. */
export interface ReceivedEvent {
  seq: number;
  webhookId: string;
  receivedAt: string;
  processedAt: string | null;
  headers: Record<string, string>;
  payload: string;
}
export interface Health {
  ready: boolean;
  /** `ready (sqlite)` or why not. */
  detail: string;
}

/** Which app this console runs in, from `/console/app.json`. */
export async function appKind(): Promise<"sender" | "receiver"> {
  const response = await fetch("/console/app.json", { cache: "no-store" });
  if (!response.ok) throw new ApiError(response.status, "The console could not tell which app it runs in.");
  return ((await response.json()) as { app: "sender" | "receiver" }).app;
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
  return new ApiError(response.status, `The app answered ${response.status} ${response.statusText}.`.trim());
}

function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/**
 * The admin API of the app this page came from, authorized with `token` (sent in the Authorization header only).
 *
 * @example
 * ```ts
 * const api = createApi("psk_…");
 * const { data } = await api.sender.deliveries({ state: "failed" });
 * ```
 */
export function createApi(token: string) {
  async function call(method: string, path: string, body?: unknown, raw?: string): Promise<string> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    const sent = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (sent !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        cache: "no-store",
        ...(sent !== undefined && { body: sent }),
      });
    } catch {
      throw new ApiError(0, "The app cannot be reached: is it still running?");
    }
    if (!response.ok) throw await failure(response);
    return response.text();
  }
  const json = async <T>(method: string, path: string, body?: unknown) =>
    JSON.parse(await call(method, path, body)) as T;

  return {
    /** `/readyz`: ready or not, and why. */
    async health(): Promise<Health> {
      const response = await fetch("/readyz", { cache: "no-store" }).catch(() => null);
      if (!response) return { ready: false, detail: "The app cannot be reached." };
      if (response.ok) {
        const body = (await response.json()) as { backend: string };
        return { ready: true, detail: `The ${body.backend} store takes writes.` };
      }
      return { ready: false, detail: (await failure(response)).message };
    },
    sender: {
      subscriptions: () => json<Page<Subscription>>("GET", "/subscriptions"),
      subscription: (id: string) => json<Subscription>("GET", `/subscriptions/${encodeURIComponent(id)}`),
      /** Adds a subscription; token and secret are generated unless given (the receiver's own). */
      createSubscription: (body: { url: string; token?: string; secret?: string }) =>
        json<Subscription & { token: string; secret: string }>("POST", "/subscriptions", body),
      changeUrl: (id: string, url: string) =>
        json<Subscription>("PATCH", `/subscriptions/${encodeURIComponent(id)}`, { url }),
      disable: (id: string, reason: string) =>
        json<Subscription>(
          "POST",
          `/subscriptions/${encodeURIComponent(id)}/disable`,
          reason ? { reason } : {},
        ),
      enable: (id: string) =>
        json<Subscription>("POST", `/subscriptions/${encodeURIComponent(id)}/enable`, {}),
      rotateSecret: (id: string, graceSeconds: number) =>
        json<{ secret: string }>("POST", `/subscriptions/${encodeURIComponent(id)}/rotate`, {
          kind: "secret",
          graceSeconds,
        }),
      rotateToken: (id: string) =>
        json<{ token: string }>("POST", `/subscriptions/${encodeURIComponent(id)}/rotate`, { kind: "token" }),
      recover: (id: string, since: string) =>
        json<{ requeued: number }>("POST", `/subscriptions/${encodeURIComponent(id)}/recover`, { since }),
      /** Publishes the payload text as typed (int64 ids stay exact). */
      publish: async (payload: string) =>
        JSON.parse(await call("POST", "/events", undefined, payload)) as {
          messageId: string;
          deliveries: number;
          duplicate: boolean;
        },
      deliveries: (filter: {
        state?: string;
        subscriptionId?: string;
        messageId?: string;
        limit?: number;
        cursor?: string | null;
      }) => json<Page<Delivery>>("GET", `/deliveries${query(filter)}`),
      delivery: (id: string) => json<Delivery>("GET", `/deliveries/${encodeURIComponent(id)}`),
      attempts: (id: string) =>
        json<{ data: Attempt[] }>("GET", `/deliveries/${encodeURIComponent(id)}/attempts`),
      resend: (id: string) => json<Delivery>("POST", `/deliveries/${encodeURIComponent(id)}/resend`, {}),
      async message(id: string): Promise<Message> {
        const parsed = parseKeepingRaw(await call("GET", `/messages/${encodeURIComponent(id)}`)) as Message;
        return { ...parsed, payload: rawOf(parsed, "payload") ?? "" };
      },
    },
    receiver: {
      async events(filter: {
        limit?: number;
        cursor?: string | null;
        type?: string;
      }): Promise<Page<ReceivedEvent>> {
        const parsed = parseKeepingRaw(await call("GET", `/events${query(filter)}`)) as Page<ReceivedEvent>;
        return { data: parsed.data.map(withRawPayload), nextCursor: parsed.nextCursor };
      },
      /**
       * Follows `/events/stream` (with fetch: EventSource cannot send the Authorization header), resuming after the
       * last event seen when the connection drops, until `signal` aborts.
       */
      async stream(options: {
        after: number | null;
        signal: AbortSignal;
        onEvent: (event: ReceivedEvent) => void;
        onState: (state: "live" | "reconnecting", why?: string) => void;
      }): Promise<void> {
        let after = options.after;
        while (!options.signal.aborted) {
          try {
            const response = await fetch(`/events/stream${query({ after })}`, {
              headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
              signal: options.signal,
              cache: "no-store",
            });
            if (!response.ok || !response.body) throw await failure(response);
            options.onState("live");
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = "";
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += value;
              let end = buffer.indexOf("\n\n");
              while (end >= 0) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const data = block
                  .split("\n")
                  .filter((line) => line.startsWith("data: "))
                  .map((line) => line.slice(6))
                  .join("\n");
                if (data && !block.split("\n").includes("event: error")) {
                  const event = withRawPayload(parseKeepingRaw(data) as ReceivedEvent);
                  after = event.seq;
                  options.onEvent(event);
                }
                end = buffer.indexOf("\n\n");
              }
            }
            options.onState("reconnecting", "The stream ended.");
          } catch (error) {
            if (options.signal.aborted) return;
            if (error instanceof ApiError && (error.status === 401 || error.status === 404)) throw error;
            options.onState("reconnecting", (error as Error).message);
          }
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
      },
    },
  };
}

function withRawPayload(event: ReceivedEvent): ReceivedEvent {
  return { ...event, payload: rawOf(event, "payload") ?? "" };
}

export type Api = ReturnType<typeof createApi>;
