import { printAnswer } from "../../admin/admin-print.js";
import { type AdminOptions, adminSession } from "../../admin/admin-session.js";

/**
 * `plant-store recover <subscription> --since <date-time>`: requeues the subscription's failed deliveries.
 *
 * @example
 * ```ts
 * await recover("sub_…", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", since: "2026-11-22T00:00:00Z" });
 * ```
 */
export async function recover(id: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const request = admin.check("recoverSubscription", {
    params: { id },
    body: { since: String(options.since) },
  });
  printAnswer(await admin.call("recoverSubscription", request), options);
}
