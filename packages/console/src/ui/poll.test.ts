import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { attempt, everyText, POLL_MS, type PollOutcome, pollFailure, startPolling } from "./poll.js";

/** A page whose visibility the test sets, and which can be shown again. */
function fakePage(visible = true) {
  let wake: (() => void) | null = null;
  return {
    page: {
      visible: () => visible,
      onShow(listener: () => void) {
        wake = listener;
        return () => {
          wake = null;
        };
      },
    },
    show() {
      visible = true;
      wake?.();
    },
    hide() {
      visible = false;
    },
    listening: () => wake !== null,
  };
}

describe("polling", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reports a failed load, keeps polling, and reports the recovery on the next success", async () => {
    const answers = [new Error("The app cannot be reached: is it still running?"), null, null];
    const outcomes: PollOutcome[] = [];
    const load = vi.fn(async () => {
      const answer = answers.shift();
      if (answer) throw answer;
    });
    const stop = startPolling({
      load,
      ms: POLL_MS,
      page: fakePage().page,
      onResult: (o) => outcomes.push(o),
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(outcomes).toEqual([{ failed: true, error: expect.any(Error) }]);
    const [first] = outcomes;
    expect(first?.failed && pollFailure(first.error, POLL_MS)).toBe(
      "The app cannot be reached: is it still running? Trying again every 2 seconds.",
    );
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(outcomes.at(-1)).toEqual({ failed: false });
    expect(load).toHaveBeenCalledTimes(2);
    stop();
  });

  it("asks nothing while the page is hidden, and asks at once when it is shown again", async () => {
    const visibility = fakePage(false);
    const load = vi.fn(async () => undefined);
    const stop = startPolling({ load, ms: POLL_MS, page: visibility.page, onResult: () => undefined });
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(load).not.toHaveBeenCalled();
    visibility.show();
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);
    stop();
  });

  it("reports nothing and asks nothing after it is stopped", async () => {
    const visibility = fakePage();
    let finish: () => void = () => undefined;
    const load = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const onResult = vi.fn();
    const stop = startPolling({ load, ms: POLL_MS, page: visibility.page, onResult });
    stop();
    finish();
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(onResult).not.toHaveBeenCalled();
    expect(load).toHaveBeenCalledTimes(1);
    expect(visibility.listening()).toBe(false);
  });

  it("counts a load that throws undefined as failed", async () => {
    expect(await attempt(() => Promise.reject(undefined))).toEqual({ failed: true, error: undefined });
    expect(await attempt(async () => undefined)).toEqual({ failed: false });
  });

  it("says the interval in words, from the number", () => {
    expect(everyText(2000)).toBe("every 2 seconds");
    expect(everyText(1000)).toBe("every second");
    expect(everyText(30_000)).toBe("every 30 seconds");
  });
});
