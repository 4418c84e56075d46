// What both apps' API modules share: the error a page shows, the health in words, and which app this is.
import type { AdminAnswer } from "@plant-store/admin-api";

/** An answer other than 2xx (or none), with the app's `{ error, message }` text; status 0 when unreachable. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The refused parts the sender named (a batch's 422), each by JSON pointer and index. */
    readonly problems: readonly { pointer: string; index?: number; message: string }[] = [],
  ) {
    super(message);
  }
}

/** `/readyz` in words: ready, or why not. */
export interface Health {
  ready: boolean;
  detail: string;
}

/**
 * An event type the app serves: an entry of `@plant-store/spec`'s catalog (type, name, path, schema, examples), as
 * `GET /event-types` answers it. Both apps answer the same entries; the shape is described once, in admin-api.
 */
export type EventType = AdminAnswer<"listEventTypes">["data"][number];

/** The sentence for "no answer at all". */
export const UNREACHABLE = "The app cannot be reached: is it still running?";

/** Which app this console runs in, from `/console/app.json`. */
export async function appKind(): Promise<"sender" | "receiver"> {
  const response = await fetch("/console/app.json", { cache: "no-store" });
  if (!response.ok) throw new ApiError(response.status, "The console could not tell which app it runs in.");
  return ((await response.json()) as { app: "sender" | "receiver" }).app;
}

/** Health from a `/readyz` answer: the store's backend when ready, else the app's message. */
export function healthOf(answer: AdminAnswer<"ready"> | ApiError): Health {
  if (answer instanceof ApiError) return { ready: false, detail: answer.message };
  return { ready: true, detail: `The ${answer.backend} store takes writes.` };
}

/**
 * An event type's name, or its id when the app does not serve it (any more).
 *
 * @example
 * ```ts
 * typeName("plantSold", types); // "Plant Sold"
 * ```
 */
export function typeName(type: string, types: readonly EventType[]): string {
  return types.find((t) => t.type === type)?.name ?? type;
}
