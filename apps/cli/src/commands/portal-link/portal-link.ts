import { printAnswer } from "../../admin/admin-print.js";
import { type AdminOptions, adminSession } from "../../admin/admin-session.js";
import { CliError } from "../../cli-error.js";

/**
 * `plant-store portal-link <app> [--expires-in <seconds>]`: prints the link (and its token, once).
 *
 * @example
 * ```ts
 * await portalLink("cust_42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function portalLink(app: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const given = admin.text("expiresIn");
  const seconds = given === undefined ? undefined : Number(given);
  if (given !== undefined && !/^\d+$/.test(given)) {
    throw new CliError("--expires-in must be a whole number of seconds (60 to 86400).", 2);
  }
  const request = admin.check("createPortalLink", {
    params: { id: app },
    body: seconds === undefined ? {} : { expiresInSeconds: seconds },
  });
  printAnswer(await admin.call("createPortalLink", request), options);
}
