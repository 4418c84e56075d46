import { useEffect, useRef, useState } from "preact/hooks";
import { attempt, type PollOutcome, type PollPage, pollFailure, startPolling } from "./poll.js";

/** The hash route (`#/deliveries/12` → `/deliveries/12`); the token never goes in it. */
export function useRoute(): string {
  const read = () => location.hash.replace(/^#/, "") || "/";
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}

/** This browser tab, as {@link startPolling} sees it. */
const tab: PollPage = {
  visible: () => document.visibilityState === "visible",
  onShow(wake) {
    const listener = () => {
      if (document.visibilityState === "visible") wake();
    };
    document.addEventListener("visibilitychange", listener);
    return () => document.removeEventListener("visibilitychange", listener);
  },
};

/** A polled view's error state, and a way to load again now (after an action changed what it shows). */
export interface Poll {
  /** Why the last load failed, in words, or `null` once one succeeds. */
  error: string | null;
  /** Loads now; its outcome sets {@link Poll.error} like a poll's. */
  refresh(): Promise<void>;
}

/**
 * Runs `load` now and then every `ms` while the tab is visible (see {@link startPolling}), and again whenever
 * `deps` change. A failed load does not clear what the page shows: it sets `error`, which the next success clears.
 *
 * @example
 * ```tsx
 * const { error } = usePoll(async () => setList(await api.list()), POLL_MS, []);
 * return <ErrorNote error={error} />;
 * ```
 */
export function usePoll(load: () => Promise<void>, ms: number, deps: unknown[]): Poll {
  const latest = useRef(load);
  latest.current = load;
  const [error, setError] = useState<string | null>(null);
  const report = (outcome: PollOutcome) => setError(outcome.failed ? pollFailure(outcome.error, ms) : null);
  useEffect(() => startPolling({ load: () => latest.current(), ms, page: tab, onResult: report }), deps);
  const refresh = async () => report(await attempt(() => latest.current()));
  return { error, refresh };
}
