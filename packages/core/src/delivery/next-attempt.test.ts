import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlantStoreError } from "../errors.js";
import { nextAttempt, STANDARD_SCHEDULE_MS, settleOutcome } from "./next-attempt.js";
import type { DeliveryOutcome } from "./types.js";

const retry: DeliveryOutcome = { kind: "retry", status: 500, latencyMs: 3, timestamp: 1_700_000_000 };
const HOUR = 3_600_000;
const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

function delayOf(result: ReturnType<typeof nextAttempt>): number {
  if (!result.retry) throw new Error(`expected a retry, got ${result.reason}`);
  return result.delayMs;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PlantStoreError);
    return (error as PlantStoreError).code;
  }
  return undefined;
}

describe("STANDARD_SCHEDULE_MS", () => {
  it("is the Standard Webhooks schedule and cannot be changed", () => {
    expect(STANDARD_SCHEDULE_MS).toEqual([
      0,
      5000,
      300_000,
      1_800_000,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      14 * HOUR,
      20 * HOUR,
      24 * HOUR,
    ]);
    expect(Object.isFrozen(STANDARD_SCHEDULE_MS)).toBe(true);
  });
});

describe("nextAttempt", () => {
  it("stops with the outcome's reason when the attempt did not ask for a retry", () => {
    for (const kind of ["delivered", "gone", "failed"] as const) {
      expect(nextAttempt(1, { ...retry, kind })).toEqual({ retry: false, reason: kind });
    }
  });

  it("waits schedule[attempt] after attempt number `attempt`", () => {
    const exact = { random: () => 0.5 };
    expect(nextAttempt(1, retry, exact)).toEqual({ retry: true, delayMs: 5000 });
    expect(nextAttempt(2, retry, exact)).toEqual({ retry: true, delayMs: 300_000 });
    expect(nextAttempt(9, retry, exact)).toEqual({ retry: true, delayMs: 24 * HOUR });
    expect(nextAttempt(10, retry, exact)).toEqual({ retry: false, reason: "exhausted" });
    expect(nextAttempt(11, retry, exact)).toEqual({ retry: false, reason: "exhausted" });
  });

  it("spreads the delay by ±jitter", () => {
    expect(delayOf(nextAttempt(1, retry, { random: () => 0 }))).toBe(4000);
    expect(delayOf(nextAttempt(1, retry, { random: () => 0.999_999_9 }))).toBe(6000);
    expect(delayOf(nextAttempt(1, retry, { random: () => 0, jitter: 0.5 }))).toBe(2500);
    expect(delayOf(nextAttempt(1, retry, { random: () => 0, jitter: 0 }))).toBe(5000);
  });

  it("follows a custom schedule, so tests can compress time", () => {
    const options = { schedule: [0, 10, 20], jitter: 0 };
    expect(nextAttempt(1, retry, options)).toEqual({ retry: true, delayMs: 10 });
    expect(nextAttempt(2, retry, options)).toEqual({ retry: true, delayMs: 20 });
    expect(nextAttempt(3, retry, options)).toEqual({ retry: false, reason: "exhausted" });
  });

  it("honours a longer Retry-After, never earlier than asked", () => {
    const asked = { ...retry, status: 429, retryAfterMs: 60_000 };
    expect(nextAttempt(1, asked, { jitter: 0 })).toEqual({ retry: true, delayMs: 60_000 });
    expect(delayOf(nextAttempt(1, asked, { random: () => 0 }))).toBe(60_000);
    expect(delayOf(nextAttempt(1, asked, { random: () => 0.5 }))).toBe(66_000);
  });

  it("never lets Retry-After shorten the schedule", () => {
    const asked = { ...retry, status: 503, retryAfterMs: 1000 };
    expect(nextAttempt(2, asked, { jitter: 0 })).toEqual({ retry: true, delayMs: 300_000 });
    expect(nextAttempt(1, { ...asked, retryAfterMs: 0 }, { jitter: 0 })).toEqual({
      retry: true,
      delayMs: 5000,
    });
  });

  it("caps Retry-After at maxRetryAfterMs, unless the schedule itself waits longer", () => {
    const asked = { ...retry, status: 503, retryAfterMs: 30 * 24 * HOUR };
    expect(delayOf(nextAttempt(1, asked, { random: () => 0.9 }))).toBe(24 * HOUR);
    expect(delayOf(nextAttempt(1, asked, { jitter: 0, maxRetryAfterMs: 60_000 }))).toBe(60_000);
    expect(delayOf(nextAttempt(9, asked, { jitter: 0, maxRetryAfterMs: HOUR }))).toBe(24 * HOUR);
  });

  it("rejects invalid attempts and options", () => {
    for (const attempt of [0, -1, 1.5, Number.NaN]) {
      expect(codeOf(() => nextAttempt(attempt, retry))).toBe("invalid_attempt");
    }
    expect(codeOf(() => nextAttempt(1, retry, { jitter: 1.5 }))).toBe("invalid_option");
    expect(codeOf(() => nextAttempt(1, retry, { jitter: -0.1 }))).toBe("invalid_option");
    expect(codeOf(() => nextAttempt(1, retry, { random: () => 1 }))).toBe("invalid_option");
    expect(codeOf(() => nextAttempt(1, retry, { schedule: [0, -5] }))).toBe("invalid_option");
    expect(codeOf(() => nextAttempt(1, retry, { maxRetryAfterMs: Number.NaN }))).toBe("invalid_option");
  });

  describe("properties", () => {
    const attempt = fc.integer({ min: 1, max: STANDARD_SCHEDULE_MS.length - 1 });
    const jitter = fc.double({ min: 0, max: 1, noNaN: true });
    const retryAfterMs = fc.option(fc.integer({ min: 0, max: 100 * 24 * HOUR }), { nil: undefined });

    it("keeps every delay within the jitter bounds of its schedule slot", () => {
      fc.assert(
        fc.property(attempt, unit, jitter, (n, r, j) => {
          const base = STANDARD_SCHEDULE_MS[n]!;
          const delay = delayOf(nextAttempt(n, retry, { random: () => r, jitter: j }));
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - j)));
          expect(delay).toBeLessThanOrEqual(Math.ceil(base * (1 + j)));
        }),
      );
    });

    it("never waits less for a later attempt given the same draw", () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: STANDARD_SCHEDULE_MS.length - 2 }), unit, jitter, (n, r, j) => {
          const options = { random: () => r, jitter: j };
          expect(delayOf(nextAttempt(n + 1, retry, options))).toBeGreaterThanOrEqual(
            delayOf(nextAttempt(n, retry, options)),
          );
        }),
      );
    });

    it("never returns a negative or fractional delay, and honours Retry-After within its clamp", () => {
      fc.assert(
        fc.property(attempt, unit, jitter, retryAfterMs, (n, r, j, asked) => {
          const delay = delayOf(
            nextAttempt(n, { ...retry, retryAfterMs: asked }, { random: () => r, jitter: j }),
          );
          const scheduled = STANDARD_SCHEDULE_MS[n]! * (1 + j * (2 * r - 1));
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(scheduled));
          expect(delay).toBeLessThanOrEqual(Math.ceil(Math.max(24 * HOUR, scheduled)));
          if (asked !== undefined) {
            expect(delay).toBeGreaterThanOrEqual(Math.min(asked, 24 * HOUR));
          }
        }),
      );
    });

    it("retries exactly while scheduled attempts remain", () => {
      fc.assert(
        fc.property(
          fc.array(fc.nat({ max: 10_000 }), { minLength: 1, maxLength: 20 }),
          fc.integer({ min: 1, max: 30 }),
          (schedule, n) => {
            expect(nextAttempt(n, retry, { schedule }).retry).toBe(n < schedule.length);
          },
        ),
      );
    });
  });
});

describe("settleOutcome", () => {
  const retry = { kind: "retry", status: 503, latencyMs: 8, timestamp: 1732077903 } as const;

  it("dates a scheduled retry from now by nextAttempt's delay", () => {
    expect(settleOutcome(retry, 1, { now: 1_000, jitter: 0 })).toEqual({ ...retry, retryAt: 6_000 });
    expect(settleOutcome({ ...retry, retryAfterMs: 60_000 }, 1, { now: 0, jitter: 0 }).retryAt).toBe(60_000);
  });

  it("fails a retry past the last scheduled attempt, keeping its status and error", () => {
    const settled = settleOutcome({ ...retry, error: "HTTP 503" }, 10, { now: 1_000 });
    expect(settled).toEqual({ ...retry, error: "HTTP 503", kind: "failed" });
    expect(settled.retryAt).toBeUndefined();
  });

  it("returns delivered, failed and gone outcomes as they are", () => {
    for (const kind of ["delivered", "failed", "gone"] as const) {
      const outcome = { ...retry, kind };
      expect(settleOutcome(outcome, 1, { now: 1_000 })).toBe(outcome);
    }
  });
});
