import { IDEMPOTENCY_KEY_RULE, MAX_IDEMPOTENCY_KEY_LENGTH } from "@plant-store/core";
import { describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";

describe("the outbox applies core's idempotency key rule (the one the sender and the CLI apply)", () => {
  it("accepts 1 to 255 visible ASCII characters with spaces only inside; refuses the rest by code", async () => {
    const store = await openStore(":memory:");
    try {
      for (const key of ["k", "order 42", "x".repeat(MAX_IDEMPOTENCY_KEY_LENGTH)]) {
        expect(
          (await store.outbox.publish({ id: 1, name: "Fern" }, { idempotencyKey: key })).messageId,
        ).toMatch(/^msg_/);
      }
      for (const key of ["", " padded", "tab\tinside", "é", "x".repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1)]) {
        await expect(
          store.outbox.publish({ id: 2, name: "Fern" }, { idempotencyKey: key }),
          JSON.stringify(key).slice(0, 20),
        ).rejects.toMatchObject({
          code: "invalid_idempotency_key",
          message: `The idempotency key must be ${IDEMPOTENCY_KEY_RULE}.`,
        });
      }
    } finally {
      await store.close();
    }
  });
});
