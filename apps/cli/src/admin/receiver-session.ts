import { receiverRoutes } from "@plant-store/admin-api";
import { type AdminApp, type AdminOptions, type RouteSession, routeSession } from "./admin-session.js";

/** The receiver's admin client, as a `destinations` command uses it: every refusal already a CLI error. */
export type ReceiverSession = RouteSession<typeof receiverRoutes>;

const RECEIVER: AdminApp = {
  name: "receiver",
  urlFlag: "--receiver-url",
  env: "PLANT_STORE_RECEIVER_URL",
  example: "http://127.0.0.1:4000",
};

/**
 * Checks the receiver's URL, the admin token and `--timeout` (exit 2 when wrong), and opens the typed client of the
 * receiver's destinations API over them.
 *
 * @example
 * ```ts
 * const rx = receiverSession({ receiverUrl: "http://127.0.0.1:4000", adminToken: "psk_…" });
 * await rx.call("listDestinations", {});
 * ```
 */
export function receiverSession(options: AdminOptions & { receiverUrl?: string }): ReceiverSession {
  return routeSession(receiverRoutes, RECEIVER, options, options.receiverUrl);
}
