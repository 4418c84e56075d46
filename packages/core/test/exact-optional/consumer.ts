// Compiled by test/exact-optional.test.ts with `exactOptionalPropertyTypes: true`: what a user with that flag
// writes against the public API, importing the package by name as users do. It is never run.

import {
  bearerChallenge,
  createKeyPair,
  createMemoryDedup,
  createMessageId,
  createSecret,
  createToken,
  createWebhookHandler,
  type DeliverOptions,
  type DeliveryOutcome,
  deliver,
  HttpError,
  type NewPlant,
  type NewPlantLossless,
  nextAttempt,
  parseNewPlant,
  type ReceivedEvent,
  serializeNewPlant,
  sign,
  signatureHeader,
  type TransportResponse,
  verify,
} from "@plant-store/core";
import { plantStoreWebhook as expressWebhook } from "@plant-store/core/express";
import { plantStoreWebhook as fastifyWebhook } from "@plant-store/core/fastify";
import { createFetchHandler } from "@plant-store/core/fetch";
import { plantStoreWebhook as honoWebhook } from "@plant-store/core/hono";
import { createNodeHandler } from "@plant-store/core/node";
import type { NewPlant as SpecNewPlant } from "@plant-store/spec";
import Fastify from "fastify";

const env: Record<string, string | undefined> = process.env;
const num = (value: string | undefined) => (value === undefined ? undefined : Number(value));
const secret = env.PLANT_STORE_WEBHOOK_SECRET;

// The exported payload types are the spec's, both ways.
export const toSpec = (plant: NewPlant): SpecNewPlant => plant;
export const fromSpec = (plant: SpecNewPlant): NewPlant => plant;
export const lossless: NewPlantLossless = { id: 1n, name: "Fern" };

// onEvent typed with the documented payload.
const onEvent = async (event: ReceivedEvent<{ id: bigint; name: string; tag?: string }>) => {
  const plant: Omit<SpecNewPlant, "id"> & { id: bigint } = event.payload;
  return plant.tag === undefined ? undefined : { duplicate: undefined };
};

// Every option may come from process.env, i.e. be undefined.
const options = {
  tokens: [env.PLANT_STORE_TOKEN ?? ""],
  secrets: secret === undefined ? undefined : [secret],
  toleranceSeconds: num(env.TOLERANCE_SECONDS),
  maxBodyBytes: num(env.MAX_BODY_BYTES),
  path: env.WEBHOOK_PATH,
  realm: env.REALM,
  dedup: env.DEDUP ? createMemoryDedup({ max: num(env.DEDUP) }) : undefined,
  now: undefined,
  logger: env.QUIET ? undefined : console,
  mode: undefined,
  onEvent,
};
createWebhookHandler(options);
createNodeHandler(options);
createFetchHandler(options);
expressWebhook(options);
honoWebhook(options);
createWebhookHandler({
  ...options,
  mode: "safe",
  onEvent: (event: ReceivedEvent<NewPlant>) => {
    event.payload.id satisfies number;
  },
});
export async function onFastify() {
  await Fastify().register(fastifyWebhook, options);
}

const parsed = parseNewPlant("{}", { mode: env.MODE === "x" ? "safe" : undefined });
if (parsed.ok) serializeNewPlant(parsed.value);
serializeNewPlant({ id: 1, name: "Fern", color: "green" });

const deliverOptions: DeliverOptions = {
  fetch: undefined,
  transport: undefined,
  now: undefined,
  timeoutMs: num(env.TIMEOUT_MS),
  userAgent: env.USER_AGENT,
  maxResponseBytes: num(env.MAX_RESPONSE_BYTES),
};
export const attempt = deliver(
  { url: "https://x.example/", token: "t", secrets: [] },
  { id: "m", body: "{}" },
  deliverOptions,
);
const outcome: DeliveryOutcome = {
  kind: "retry",
  status: num(env.STATUS),
  latencyMs: 1,
  timestamp: 1,
  responseBody: env.BODY,
  retryAfterMs: num(env.RETRY_AFTER),
  error: env.ERROR,
};
nextAttempt(1, outcome, {
  schedule: undefined,
  random: undefined,
  jitter: num(env.JITTER),
  maxRetryAfterMs: undefined,
});
export const response: TransportResponse = {
  status: 200,
  type: env.TYPE,
  headers: { get: () => null },
  readBody: async () => "",
};

verify({
  secrets: [],
  id: env.ID,
  timestamp: env.TS,
  signature: env.SIG,
  body: "",
  now: undefined,
  toleranceSeconds: num(env.TOLERANCE_SECONDS),
});
createSecret({ random: undefined });
createToken({ random: undefined });
createMessageId({ now: undefined, random: undefined });
bearerChallenge({ realm: env.REALM, error: undefined, description: env.DESCRIPTION });
export const error = new HttpError(400, "bad", "Bad.", { headers: undefined, cause: undefined });

// The README's "Sign and verify" snippet: the timestamp passed to sign() is passed unchanged to verify().
export async function readmeSignAndVerify(body: string) {
  const readmeSecret = createSecret();
  const id = "msg_1";
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await sign({ secret: readmeSecret, id, timestamp, body });
  const result = await verify({ secrets: [readmeSecret], id, timestamp, signature, body });
  const { privateKey, publicKey } = await createKeyPair();
  const v1a = await sign({ privateKey, id, timestamp: String(timestamp), body });
  const both = await signatureHeader({
    secrets: [readmeSecret],
    privateKeys: [privateKey],
    id,
    timestamp,
    body,
  });
  await verify({
    publicKeys: [publicKey],
    secrets: undefined,
    id,
    timestamp,
    signature: `${v1a} ${both}`,
    body,
  });
  return result.ok ? result.timestamp : result.code;
}
