// Bun: `bun examples/bun-serve.mjs` with PLANT_STORE_TOKEN and PLANT_STORE_WEBHOOK_SECRET set.
import { createFetchHandler } from "@plant-store/core/fetch";

export const received = [];

export const server = Bun.serve({
  port: Number(Bun.env.PORT ?? 3000),
  fetch: createFetchHandler({
    tokens: [Bun.env.PLANT_STORE_TOKEN],
    secrets: [Bun.env.PLANT_STORE_WEBHOOK_SECRET],
    // Commit the event here (a database insert); the 200 goes out only after this resolves.
    onEvent: async (event) => {
      received.push(event.payload);
    },
  }),
});
