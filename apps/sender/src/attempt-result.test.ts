import type { DeliveryOutcome } from "@plant-store/core";
import { describe, expect, it } from "vitest";
import { judgeAttempt, loggedOutcome } from "./attempt-result.js";

const NOW = 1_750_000_000_000;
const schedule = [0, 1000, 2000];
const outcome = (o: Partial<DeliveryOutcome>): DeliveryOutcome => ({
  kind: "retry",
  latencyMs: 3,
  timestamp: NOW / 1000,
  ...o,
});

describe("judgeAttempt", () => {
  it("completes a 2xx and records the attempt as a value", () => {
    const result = judgeAttempt(
      outcome({ kind: "delivered", reason: "status", status: 204, responseBody: "" }),
      1,
      schedule,
      NOW,
    );
    expect(result).toMatchObject({
      label: "delivered",
      action: { kind: "complete" },
      attempt: { status: 204, latencyMs: 3, responseBody: "", error: null },
    });
  });

  it("fails a 410 and disables the subscription", () => {
    const result = judgeAttempt(outcome({ kind: "gone", reason: "status", status: 410 }), 1, schedule, NOW);
    expect(result.action).toEqual({
      kind: "fail",
      reason: "The endpoint answered 410 Gone.",
      disable: "The endpoint answered 410 Gone.",
    });
  });

  it("retries on the schedule until it is exhausted, then fails with the attempt's error", () => {
    const failing = outcome({ reason: "status", status: 500, error: "status 500" });
    const second = judgeAttempt(failing, 2, schedule, NOW);
    expect(second.label).toBe("retry");
    expect(second.action.kind).toBe("retry");
    const at = (second.action as { at: number }).at;
    expect(at).toBeGreaterThanOrEqual(NOW + 2000 * 0.8);
    expect(at).toBeLessThanOrEqual(NOW + 2000 * 1.2);
    const last = judgeAttempt(failing, 3, schedule, NOW);
    expect(last.action).toEqual({ kind: "fail", reason: "status 500" });
    expect(loggedOutcome(last)).toBe("failed");
    expect(loggedOutcome(second)).toBe("retry");
  });

  it("labels a refusal of the SSRF guard blocked from the outcome's reason, whatever its text", () => {
    const blocked = judgeAttempt(
      outcome({
        kind: "failed",
        reason: "blocked_address",
        latencyMs: 0,
        error: "10.0.0.1 is a private address",
      }),
      1,
      schedule,
      NOW,
    );
    expect(blocked).toMatchObject({
      label: "blocked",
      action: { kind: "fail", reason: "10.0.0.1 is a private address" },
    });
    expect(loggedOutcome(blocked)).toBe("blocked");
    // A message that merely mentions the guard is not a refusal.
    const unusable = judgeAttempt(
      outcome({ kind: "failed", reason: "unusable_target", error: "Refused by the SSRF guard: not really" }),
      1,
      schedule,
      NOW,
    );
    expect(unusable.label).toBe("failed");
  });
});
