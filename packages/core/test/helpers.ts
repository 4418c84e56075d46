import { WEBHOOK_PATH } from "@plant-store/spec";
import { PlantStoreError } from "../src/errors.js";
import { sign } from "../src/signing/index.js";

export const TOKEN = "psk_1111111111111111111111111111114SunM0";
export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
export const NOW_MS = 1_700_000_000_000;
export const NOW_S = NOW_MS / 1000;

/** Headers of a correctly signed, authenticated New Plant delivery. */
export async function signedHeaders(
  body: string,
  options: { id?: string; timestamp?: number; secret?: string; token?: string } = {},
): Promise<Record<string, string>> {
  const id = options.id ?? "msg_test_1";
  const timestamp = options.timestamp ?? NOW_S;
  return {
    authorization: `Bearer ${options.token ?? TOKEN}`,
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await sign({ secret: options.secret ?? SECRET, id, timestamp, body }),
  };
}

export function webhookUrl(base = "http://receiver.test"): string {
  return `${base}${WEBHOOK_PATH}`;
}

/** The PlantStoreError that `action` throws (any other error is rethrown; none is a failure). */
export function thrown(action: () => unknown): PlantStoreError {
  try {
    action();
  } catch (error) {
    if (error instanceof PlantStoreError) return error;
    throw error;
  }
  throw new Error("expected a PlantStoreError");
}
