import { createKeyPair, signatureHeader } from "@plant-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN,
  cleanup,
  post,
  type Running,
  SECRET,
  signedHeaders,
  startReceiver,
  TOKEN,
} from "./support.js";

const PLANT = '{"id":7,"name":"Fern"}';
let receiver: Running;
let previous: Awaited<ReturnType<typeof createKeyPair>>;
let current: Awaited<ReturnType<typeof createKeyPair>>;

beforeAll(async () => {
  [previous, current] = await Promise.all([createKeyPair(), createKeyPair()]);
  // Rotation: the receiver trusts the previous and the current public key, given as one comma-separated list.
  receiver = await startReceiver(["--token", TOKEN, "--admin-token", ADMIN, "--db", ":memory:"], {
    PLANT_STORE_WEBHOOK_PUBLIC_KEY: `${previous.publicKey},${current.publicKey}`,
  });
});
afterAll(async () => {
  receiver.child.kill("SIGTERM");
  await receiver.exited;
  cleanup();
});

async function signedWith(id: string, privateKeys: string[], secrets: string[] = []) {
  const headers = await signedHeaders(PLANT, { id });
  const timestamp = Number(headers["webhook-timestamp"]);
  const signature = await signatureHeader({ secrets, privateKeys, id, timestamp, body: PLANT });
  return { ...headers, "webhook-signature": signature };
}

describe("plant-store-receiver --public-key (v1a, ed25519)", () => {
  it("stores events signed with either trusted key, and refuses any other key or a v1-only signature", async () => {
    expect(
      (await post(receiver.url, PLANT, await signedWith("msg_v1a_1", [previous.privateKey]))).status,
    ).toBe(200);
    expect(
      (await post(receiver.url, PLANT, await signedWith("msg_v1a_2", [current.privateKey]))).status,
    ).toBe(200);
    const stranger = await createKeyPair();
    const refused = await post(receiver.url, PLANT, await signedWith("msg_v1a_3", [stranger.privateKey]));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      error: 401,
      message: expect.stringMatching(/No v1a \(ed25519\) signature matches/),
    });
    // The secret means nothing to this receiver: it holds public keys only.
    const v1 = await post(
      receiver.url,
      PLANT,
      await signedHeaders(PLANT, { id: "msg_v1a_4", secret: SECRET }),
    );
    expect(v1.status).toBe(401);
    // A sender migrating to ed25519 signs with both; the v1a entry verifies here.
    expect(
      (await post(receiver.url, PLANT, await signedWith("msg_v1a_5", [current.privateKey], [SECRET]))).status,
    ).toBe(200);
    const res = await fetch(`${receiver.url}/events?limit=10`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const ids = ((await res.json()) as { data: { webhookId: string }[] }).data.map((e) => e.webhookId).sort();
    expect(ids).toEqual(["msg_v1a_1", "msg_v1a_2", "msg_v1a_5"]);
  });
});
