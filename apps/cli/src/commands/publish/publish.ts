import { printAnswer } from "../../admin/admin-print.js";
import { type AdminOptions, adminSession } from "../../admin/admin-session.js";
import { commandEvent, type EventOptions } from "../../events.js";
import { type PayloadOptions, payloadBytes } from "../../payload.js";

/**
 * `plant-store publish`: publishes an event through the sender. `--event` names a webhook of the contract (or of
 * `--spec`); the sender checks the body against its schema.
 *
 * @example
 * ```ts
 * await publish({ senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", id: "42", name: "Fern" });
 * ```
 */
export async function publish(
  options: AdminOptions & EventOptions & PayloadOptions & { idempotencyKey?: string },
): Promise<void> {
  const admin = adminSession(options);
  const key = options.idempotencyKey;
  const headers = key === undefined ? {} : { "idempotency-key": key };
  const { entry } = await commandEvent(options);
  const query = { type: entry.type };
  admin.check("publishEvent", { query, headers, body: "" });
  const body = await payloadBytes(options, false, entry);
  printAnswer(await admin.call("publishEvent", { query, headers, body }), options);
}
