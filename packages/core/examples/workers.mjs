// Cloudflare Workers (module syntax): PLANT_STORE_TOKEN and PLANT_STORE_WEBHOOK_PUBLIC_KEY as secrets,
// EVENTS as a KV namespace binding.
import { createFetchHandler } from "@plant-store/core/fetch";

let handler;

export default {
  async fetch(request, env) {
    // Bindings arrive with the first request; the handler (keys decoded once) is kept for the next ones.
    handler ??= createFetchHandler({
      tokens: [env.PLANT_STORE_TOKEN],
      publicKeys: [env.PLANT_STORE_WEBHOOK_PUBLIC_KEY],
      // Kept before the 200; a duplicate webhook-id overwrites the same key, so a retry has no second effect.
      onEvent: async (event) => {
        await env.EVENTS.put(event.id, new TextDecoder().decode(event.body));
      },
    });
    return handler(request);
  },
};
