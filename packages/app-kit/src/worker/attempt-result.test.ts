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
      outcome: { kind: "delivered", status: 204, latencyMs: 3, responseBody: "" },
    });
    expect(result.outcome.error).toBeUndefined();
  });

  it("records a 410 as gone: the outbox fails the delivery and disables the subscription with it", () => {
    const result = judgeAttempt(outcome({ kind: "gone", reason: "status", status: 410 }), 1, schedule, NOW);
    expect(result).toMatchObject({ label: "gone", outcome: { kind: "gone", status: 410 } });
    expect(result.outcome.retryAt).toBeUndefined();
  });

  it("retries on the schedule until it is exhausted, then fails with the attempt's error", () => {
    const failing = outcome({ reason: "status", status: 500, error: "status 500" });
    const second = judgeAttempt(failing, 2, schedule, NOW);
    expect(second.label).toBe("retry");
    expect(second.outcome.kind).toBe("retry");
    const at = second.outcome.retryAt as number;
    expect(at).toBeGreaterThanOrEqual(NOW + 2000 * 0.8);
    expect(at).toBeLessThanOrEqual(NOW + 2000 * 1.2);
    const last = judgeAttempt(failing, 3, schedule, NOW);
    expect(last.outcome).toMatchObject({ kind: "failed", error: "status 500" });
    expect(last.label).toBe("retry");
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
      outcome: { kind: "failed", error: "10.0.0.1 is a private address" },
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
