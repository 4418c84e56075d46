// Deno: `deno run --allow-net --allow-env examples/deno-serve.mjs` with PLANT_STORE_TOKEN and
// PLANT_STORE_WEBHOOK_SECRET set.
import { createFetchHandler } from "@plant-store/core/fetch";

export const received = [];

export const server = Deno.serve(
  { port: Number(Deno.env.get("PORT") ?? 3000), onListen: () => {} },
  createFetchHandler({
    tokens: [Deno.env.get("PLANT_STORE_TOKEN")],
    secrets: [Deno.env.get("PLANT_STORE_WEBHOOK_SECRET")],
    // Commit the event here (a database insert); the 200 goes out only after this resolves.
    onEvent: async (event) => {
      received.push(event.payload);
    },
  }),
);
