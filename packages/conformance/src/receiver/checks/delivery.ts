import { SOURCES } from "../../sources.js";
import { answer, is2xx, judgeAll, type ReceiverCheck } from "../check.js";

export const deliveryChecks: readonly ReceiverCheck[] = [
  {
    id: "duplicate.same-id",
    title: "The same webhook-id delivered twice is answered 2xx both times",
    level: "MUST",
    source: SOURCES.swVerifying,
    why: "Senders retry when an answer is lost; a receiver that refuses the second copy makes the sender retry until it gives up.",
    fix: "Deduplicate on webhook-id and answer the duplicate with the same 2xx, without processing it again.",
    note: "Whether the receiver processed the event once cannot be seen from outside; check its store.",
    run: async (context) => {
      const { entry } = context.message();
      const id = context.newId();
      const first = await context.deliver({ entry, id });
      const second = await context.deliver({ entry, id });
      return judgeAll(
        [
          { label: "first delivery", exchange: first },
          { label: "same webhook-id again", exchange: second },
        ],
        is2xx,
        "2xx",
      );
    },
  },
  {
    id: "timing.in-time",
    title: "A delivery is answered within the sender's attempt timeout",
    level: "MUST",
    source: SOURCES.swTimeouts,
    why: "An answer after the sender's timeout counts as a failure: the event is sent again, and again.",
    fix: "Store the event and answer 2xx at once; do slow work after answering (a queue, a job).",
    run: async (context) => {
      const { entry } = context.message();
      const exchange = await context.deliver({ entry });
      const limit = context.options.attemptTimeoutMs;
      const pass = is2xx(exchange) && exchange.ms <= limit;
      return {
        pass,
        detail: `${answer(exchange)} after ${exchange.ms} ms (limit ${limit} ms)`,
        exchanges: [exchange],
      };
    },
  },
  {
    id: "timing.burst",
    title: "A burst of concurrent deliveries is answered, each in time",
    level: "MUST",
    group: "load",
    source: SOURCES.swTimeouts,
    why: "Senders deliver a backlog concurrently after an outage; a receiver that stalls then turns a backlog into retries.",
    fix: "Make sure concurrent requests do not serialize behind one slow step (a lock, a synchronous call), and size the server for the burst.",
    run: async (context) => {
      const { entry } = context.message();
      const limit = context.options.attemptTimeoutMs;
      const exchanges = await Promise.all(
        Array.from({ length: context.options.burst }, () => context.deliver({ entry })),
      );
      const finding = judgeAll(
        exchanges.map((exchange, index) => ({
          label: `delivery ${index + 1} of ${exchanges.length}`,
          exchange,
        })),
        (exchange) => is2xx(exchange) && exchange.ms <= limit,
        `2xx within ${limit} ms`,
      );
      const slowest = Math.max(...exchanges.map((exchange) => exchange.ms));
      return {
        ...finding,
        detail: `${finding.detail}; slowest ${slowest} ms`,
        exchanges: exchanges.slice(0, 3),
      };
    },
  },
];
