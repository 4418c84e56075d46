import { describe, expect, it } from "vitest";
import { type AttemptInput, openStore } from "../src/index.js";

// Type-checked by the package's `tsc` with exactOptionalPropertyTypes on (packages/store/tsconfig.json): what a
// consumer with that flag writes — optional values that may be undefined, such as an environment variable or an
// outcome's optional status — must be accepted by the options and inputs it passes. At run time it opens a store.

describe("public inputs accept undefined where they are optional (exactOptionalPropertyTypes)", () => {
  it("openStore options, publish options, attempts and list filters", async () => {
    const fromEnv: string | undefined = process.env.PLANT_STORE_TYPES_TEST_UNSET;
    const store = await openStore({
      url: ":memory:",
      encryptionKey: fromEnv,
      busyTimeoutMs: undefined,
      logger: { warn() {} },
    });
    try {
      const outcome: { status?: number | undefined; error?: string | undefined } = { status: 200 };
      const attempt: AttemptInput = { status: outcome.status, latencyMs: 1, error: outcome.error };
      await store.subscriptions.create({ url: "https://a.example/hook", token: "psk_t", enabled: undefined });
      await store.outbox.publish({ id: 1, name: "Fern" }, { idempotencyKey: fromEnv });
      const [delivery] = await store.outbox.claim(1, {
        leaseMs: 1000,
        workerId: "w",
        skipSubscriptions: undefined,
      });
      await store.outbox.record(delivery!, { kind: "delivered", retryAt: undefined, ...attempt });
      const page = await store.outbox.listDeliveries({
        state: undefined,
        cursor: undefined,
        limit: undefined,
      });
      expect(page.items[0]).toMatchObject({ state: "delivered", lastStatus: 200 });
      await expect(
        store.inbox.record({ webhookId: "m", body: 5 as unknown as string }),
      ).rejects.toMatchObject({
        code: "invalid_body",
      });
    } finally {
      await store.close();
    }
  });
});
