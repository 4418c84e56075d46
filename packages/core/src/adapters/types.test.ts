import { describe, expectTypeOf, it } from "vitest";
import { createToken } from "../auth/index.js";
import type { NewPlant, NewPlantLossless } from "../events/index.js";
import type { ReceivedEvent } from "../receive/types.js";
import { plantStoreWebhook as expressWebhook } from "./express.js";
import { plantStoreWebhook as fastifyWebhook } from "./fastify.js";
import { createFetchHandler } from "./fetch.js";
import { plantStoreWebhook as honoWebhook } from "./hono.js";
import { createNodeHandler } from "./node.js";

// Checked by `tsc` (the package's typecheck, strict): every adapter types the `onEvent` callback from its options,
// as `createWebhookHandler` does, so `(event) => …` needs no annotation. At run time the handlers are only built.

describe("adapters type onEvent's event from the options", () => {
  it("node, fetch, express, hono, fastify", () => {
    const tokens = [createToken()];
    createNodeHandler({
      tokens,
      onEvent: (event) => {
        expectTypeOf(event).toEqualTypeOf<ReceivedEvent<NewPlant>>();
      },
    });
    createNodeHandler({
      tokens,
      mode: "lossless",
      onEvent: (event) => {
        expectTypeOf(event).toEqualTypeOf<ReceivedEvent<NewPlantLossless>>();
      },
    });
    createFetchHandler({
      tokens,
      onEvent: async (event) => {
        expectTypeOf(event.payload.name).toEqualTypeOf<string>();
      },
    });
    expressWebhook({
      tokens,
      onEvent: (event) => {
        expectTypeOf(event.payload).toEqualTypeOf<NewPlant>();
      },
    });
    honoWebhook({
      tokens,
      onEvent: (event) => {
        expectTypeOf(event.payload).toEqualTypeOf<NewPlant>();
      },
    });
    const register = (plugin: typeof fastifyWebhook, options: Parameters<typeof fastifyWebhook>[1]) => [
      plugin,
      options,
    ];
    register(fastifyWebhook, {
      tokens,
      onEvent: (event) => {
        expectTypeOf(event.payload).toEqualTypeOf<NewPlant>();
      },
    });
  });
});
