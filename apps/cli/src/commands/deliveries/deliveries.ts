import { printAnswer } from "../../admin/admin-print.js";
import { type AdminOptions, adminSession } from "../../admin/admin-session.js";

/**
 * `plant-store deliveries list`: one page, newest first, filtered by `--state` and `--subscription`.
 *
 * @example
 * ```ts
 * await list({ senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", state: "failed" });
 * ```
 */
export async function list(options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const query = {
    ...(options.state !== undefined && { state: String(options.state) as never }),
    ...(options.subscription !== undefined && { subscriptionId: String(options.subscription) }),
    ...(options.limit !== undefined && { limit: String(options.limit) }),
    ...(options.cursor !== undefined && { cursor: String(options.cursor) }),
  };
  printAnswer(
    await admin.call("listDeliveries", admin.check("listDeliveries", { query })),
    options,
    "deliveries",
  );
}

/**
 * `plant-store deliveries show <id>`: the delivery and its attempt log.
 *
 * @example
 * ```ts
 * await show("42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function show(id: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const delivery = await admin.call("getDelivery", admin.check("getDelivery", { params: { id } }));
  const attempts = await admin.call("listAttempts", { params: { id } });
  printAnswer({ ...delivery, attemptLog: attempts.data }, options);
}

/**
 * `plant-store deliveries resend <id>`.
 *
 * @example
 * ```ts
 * await resend("42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function resend(id: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  printAnswer(await admin.call("resendDelivery", admin.check("resendDelivery", { params: { id } })), options);
}
