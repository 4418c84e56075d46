// Type-checked by the consumer test (strict, NodeNext) against the installed tarballs' .d.ts files.
import { createServer } from "node:http";
import {
  createWebhookHandler,
  type NewPlant,
  parseNewPlant,
  type ReceivedEvent,
  verify,
} from "@plant-store/core";
import { createFetchHandler } from "@plant-store/core/fetch";
import { createNodeHandler } from "@plant-store/core/node";
import { type ApiError, document, type NewPlant as SpecNewPlant, WEBHOOK_PATH } from "@plant-store/spec";
import { openStore } from "@plant-store/store";

const fromSpec: SpecNewPlant = { id: 1, name: "Monstera" };
const fromCore: NewPlant = fromSpec;
const error: ApiError = { error: 422, message: "/id: expected an integer" };

const result = parseNewPlant('{"id":1,"name":"x"}', { mode: "safe" });
if (result.ok) {
  const id: number = result.value.id;
  const tag: string | undefined = result.value.tag;
  console.log(id, tag);
} else {
  const pointers: string[] = result.issues.map((issue) => issue.pointer);
  console.log(pointers);
}
const lossless = parseNewPlant('{"id":1,"name":"x"}', { mode: "lossless" });
if (lossless.ok) {
  const id: bigint = lossless.value.id;
  // @ts-expect-error lossless ids are bigint, not number: the types must not be `any`
  const wrong: number = lossless.value.id;
  console.log(id, wrong);
}

async function save(event: ReceivedEvent<NewPlant>): Promise<{ duplicate: boolean }> {
  const store = await openStore(":memory:");
  const recorded = await store.inbox.record({
    webhookId: event.id ?? "none",
    body: event.body,
    headers: event.headers,
  });
  await store.close();
  return { duplicate: recorded.duplicate };
}
const handler = createWebhookHandler({ tokens: ["psk_x"], mode: "safe", onEvent: save });
// The default (lossless) mode hands int64 ids over as bigint, and `event.type` narrows the payload.
createWebhookHandler({
  tokens: ["psk_x"],
  onEvent: (event) => {
    if (event.type === "newPlant") {
      const id: bigint = event.payload.id;
      console.log(id);
    }
  },
});
createServer(createNodeHandler(handler)).listen(0).close();
const fetchHandler: (request: Request) => Promise<Response> = createFetchHandler(handler);
const verdict = await verify({ secrets: [], id: "a", timestamp: "1", signature: "v1,x", body: "" });
if (!verdict.ok) console.log(verdict.code);
console.log(fromCore, error, fetchHandler, document.info.title, WEBHOOK_PATH);
