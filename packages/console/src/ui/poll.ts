// The sender's live views are polling: its admin API has no push channel, and a poll only while someone looks keeps
// the app's request path untouched. This module is the loop itself, without Preact or the DOM, so it can be tested.

/** How often the live views ask again (only while the tab is visible). */
export const POLL_MS = 2000;

/**
 * An interval in words, for the sentences that say how often a view updates.
 *
 * @example
 * ```ts
 * everyText(POLL_MS); // "every 2 seconds"
 * ```
 */
export function everyText(ms: number): string {
  const seconds = ms / 1000;
  return seconds === 1 ? "every second" : `every ${seconds} seconds`;
}

/**
 * The error state of a view whose last poll failed: why, and that it tries again on its own.
 *
 * @example
 * ```ts
 * pollFailure(new Error("The app cannot be reached."), 2000);
 * // "The app cannot be reached. Trying again every 2 seconds."
 * ```
 */
export function pollFailure(error: unknown, ms: number): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${message} Trying again ${everyText(ms)}.`;
}

/** Whether the page is looked at, and a way to hear when it is again (a browser tab's visibility). */
export interface PollPage {
  visible(): boolean;
  /** Calls `wake` each time the page becomes visible; the returned function stops that. */
  onShow(wake: () => void): () => void;
}

/** How one load went: a value, so that a load that throws `undefined` still counts as failed. */
export type PollOutcome = { failed: false } | { failed: true; error: unknown };

/**
 * Runs `load` once and says how it went; never throws.
 *
 * @example
 * ```ts
 * const outcome = await attempt(load);
 * if (outcome.failed) show(pollFailure(outcome.error, POLL_MS));
 * ```
 */
export function attempt(load: () => Promise<void>): Promise<PollOutcome> {
  return load().then(
    (): PollOutcome => ({ failed: false }),
    (error: unknown): PollOutcome => ({ failed: true, error }),
  );
}

/** What {@link startPolling} runs, how often, and whom it tells how each poll went. */
export interface PollOptions {
  load: () => Promise<void>;
  ms: number;
  page: PollPage;
  /** After each poll, how it went. */
  onResult: (outcome: PollOutcome) => void;
}

/**
 * Runs `load` now and then every `ms` while the page is visible (a hidden tab costs the app nothing), and at once
 * when the page is shown again. Returns the function that stops it; nothing is reported after that.
 *
 * @example
 * ```ts
 * const stop = startPolling({ load, ms: POLL_MS, page, onResult: (outcome) => show(outcome) });
 * ```
 */
export function startPolling({ load, ms, page, onResult }: PollOptions): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    if (stopped) return;
    if (page.visible()) {
      const outcome = await attempt(load);
      if (!stopped) onResult(outcome);
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  void tick();
  const forget = page.onShow(() => {
    clearTimeout(timer);
    void tick();
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
    forget();
  };
}
