import Fastify from "fastify";
import { describe, expectTypeOf, it } from "vitest";
import { createToken } from "../auth/index.js";
import type { NewPlant, NewPlantLossless } from "../events/index.js";
import type { CatalogEvent, ReceivedEvent } from "../receive/types.js";
import { plantStoreWebhook as expressWebhook } from "./express.js";
import { type FastifyLike, plantStoreWebhook as fastifyWebhook } from "./fastify.js";
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
        expectTypeOf(event).toEqualTypeOf<CatalogEvent>();
        expectTypeOf(event.type).toEqualTypeOf<"newPlant">();
        expectTypeOf(event.payload.id).toEqualTypeOf<bigint>();
        expectTypeOf(event).toExtend<ReceivedEvent<NewPlantLossless>>();
      },
    });
    createNodeHandler({
      tokens,
      mode: "safe",
      onEvent: (event) => {
        expectTypeOf(event.payload.id).toEqualTypeOf<number>();
        expectTypeOf(event).toExtend<ReceivedEvent<NewPlant>>();
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
      mode: "safe",
      onEvent: (event) => {
        expectTypeOf(event.payload).toExtend<NewPlant>();
      },
    });
    honoWebhook({
      tokens,
      onEvent: (event) => {
        expectTypeOf(event.payload).toExtend<NewPlantLossless>();
      },
    });
    const register = (plugin: typeof fastifyWebhook, options: Parameters<typeof fastifyWebhook>[1]) => [
      plugin,
      options,
    ];
    register(fastifyWebhook, {
      tokens,
      onEvent: (event) => {
        expectTypeOf(event.payload).toExtend<NewPlantLossless>();
      },
    });
  });
});

// Fastify 4's `HTTPMethods` (fastify@4.29.1 types/utils.d.ts): its `route({ method })` takes these literals only,
// not any string as Fastify 5 does. Fastify 4 is not a dev dependency here; the scratch check with fastify@4.29.1
// is in the changeset's notes.
type Fastify4Method =
  | "DELETE"
  | "GET"
  | "HEAD"
  | "PATCH"
  | "POST"
  | "PUT"
  | "OPTIONS"
  | "PROPFIND"
  | "PROPPATCH"
  | "MKCOL"
  | "COPY"
  | "MOVE"
  | "LOCK"
  | "UNLOCK"
  | "TRACE"
  | "SEARCH"
  | "REPORT"
  | "MKCALENDAR";
type Fastify4HTTPMethods = Uppercase<Fastify4Method> | Lowercase<Fastify4Method>;

describe("the Fastify plugin registers on real Fastify instances", () => {
  it("Fastify 5: app.register(plantStoreWebhook, { tokens, secrets, onEvent }) as in the README", () => {
    const tokens = [createToken()];
    const secrets = ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];
    const onEvent = async (event: ReceivedEvent<NewPlant>) => {
      expectTypeOf(event.payload.id).toEqualTypeOf<number>();
    };
    // Only compiled: registering is what tsc checks; the app is never started.
    const register = async () => {
      const app = Fastify();
      await app.register(fastifyWebhook, { tokens, secrets, mode: "safe", onEvent });
      await app.register(fastifyWebhook, {
        tokens,
        onEvent: async (_: ReceivedEvent<NewPlantLossless>) => {},
      });
    };
    expectTypeOf(register).toBeFunction();
  });

  it("Fastify 4: the routed methods are literals of its HTTPMethods, not any string", () => {
    type RoutedMethods = Parameters<FastifyLike["route"]>[0]["method"];
    expectTypeOf<RoutedMethods>().toExtend<Fastify4HTTPMethods[]>();
    expectTypeOf<RoutedMethods>().not.toEqualTypeOf<string[]>();
  });
});
