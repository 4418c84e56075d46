import { useEffect, useRef, useState } from "preact/hooks";

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

/**
 * Runs `load` now and then every `ms` while the tab is visible (a hidden tab costs the app nothing), and again
 * whenever `deps` change. The live view of the sender is this polling: the admin API has no push channel, and a
 * poll only while someone looks keeps the app's request path untouched.
 */
export function usePoll(load: () => Promise<void>, ms: number, deps: unknown[]): void {
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState === "visible") await latest.current().catch(() => undefined);
      if (!stopped) timer = setTimeout(tick, ms);
    };
    void tick();
    const wake = () => {
      if (document.visibilityState === "visible") {
        clearTimeout(timer);
        void tick();
      }
    };
    document.addEventListener("visibilitychange", wake);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", wake);
    };
  }, deps);
}
