import { useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.js";
import type { ReceivedEvent, ReceiverApi } from "./receiver-api.js";

/** How many events a page of `GET /events` asks for. */
const PAGE = 25;

/** What {@link useEvents} keeps: the events loaded (newest first), the stream's state in words, and why it stopped. */
export interface Events {
  /** `null` until the first page arrives. */
  events: ReceivedEvent[] | null;
  /** Whether there are older events to load. */
  hasOlder: boolean;
  live: string;
  error: string | null;
  loadOlder(): Promise<void>;
}

/** The sentence for the stream's state. */
function liveText(state: "live" | "reconnecting", why?: string): string {
  return state === "live" ? "Live: new events appear here as they are stored." : `Reconnecting… ${why ?? ""}`;
}

/** `current` with `event` in front, unless it is already there (an event can come by page and by stream). */
function withNew(current: ReceivedEvent[] | null, event: ReceivedEvent): ReceivedEvent[] {
  return current?.some((e) => e.seq === event.seq) ? current : [event, ...(current ?? [])];
}

/**
 * The receiver's events of `type` (any when empty): the newest page, then live from `/events/stream`, with older
 * pages on demand. The type filter is the receiver's own (`GET /events?type=`); the stream carries every type and is
 * filtered here.
 *
 * @example
 * ```ts
 * const { events, live, loadOlder } = useEvents(api, "plantSold");
 * ```
 */
export function useEvents(api: ReceiverApi, type: string): Events {
  const [events, setEvents] = useState<ReceivedEvent[] | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const [live, setLive] = useState<string>("Connecting…");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    setEvents(null);
    (async () => {
      try {
        // The newest event of any type first, then the page of this type: the stream resumes after the former, so
        // nothing stored between the two requests is missed (an event in both is shown once).
        const newest = type ? ((await api.events({ limit: 1 })).data[0]?.seq ?? 0) : null;
        const first = await api.events({ limit: PAGE, ...(type && { type }) });
        setEvents(first.data);
        setOlder(first.nextCursor);
        await api.stream({
          after: newest ?? first.data[0]?.seq ?? 0,
          signal: controller.signal,
          onEvent: (event) => {
            if (!type || event.type === type) setEvents((current) => withNew(current, event));
          },
          onState: (state, why) => setLive(liveText(state, why)),
        });
      } catch (e) {
        if (controller.signal.aborted) return;
        setError((e as Error).message);
        setLive(e instanceof ApiError && e.status === 401 ? "Stopped: log in again." : "Stopped.");
      }
    })();
    return () => controller.abort();
  }, [api, type]);
  const loadOlder = async () => {
    try {
      const page = await api.events({ limit: PAGE, cursor: older, ...(type && { type }) });
      setEvents((current) => [...(current ?? []), ...page.data]);
      setOlder(page.nextCursor);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return { events, hasOlder: Boolean(older), live, error, loadOlder };
}
