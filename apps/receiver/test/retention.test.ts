import pino from "pino";
import { describe, expect, it } from "vitest";
import { until } from "../../../test-support/processes.js";
import { createReceiver } from "../src/index.js";
import { TOKEN } from "./support.js";

const DAY = 86_400_000;

describe("retention", () => {
  it("purges inbox events older than the retention period (30 days by default) soon after start, keeps the rest", async () => {
    const lines: string[] = [];
    const receiver = await createReceiver({
      tokens: [TOKEN],
      logger: pino({ level: "info" }, { write: (line: string) => lines.push(line) }),
    });
    try {
      for (let i = 0; i < 3; i++)
        await receiver.store.inbox.record({
          webhookId: `msg_old_${i}`,
          body: "{}",
          receivedAt: Date.now() - 31 * DAY,
        });
      await receiver.store.inbox.record({
        webhookId: "msg_recent",
        body: "{}",
        receivedAt: Date.now() - 29 * DAY,
      });
      await until(async () => (await receiver.store.inbox.count()) === 1);
      expect((await receiver.store.inbox.list()).items.map((e) => e.webhookId)).toEqual(["msg_recent"]);
      const line = await until(() => lines.find((l) => l.includes("retention: purged")));
      expect(JSON.parse(line)).toMatchObject({ inboxEvents: 3 });
    } finally {
      await receiver.close();
    }
  });
});
