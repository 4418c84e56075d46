import { printAnswer } from "../../admin/admin-print.js";
import { type AdminOptions, adminSession } from "../../admin/admin-session.js";

/**
 * `plant-store applications add <uid> --name <name>`.
 *
 * @example
 * ```ts
 * await add("cust_42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", name: "Acme" });
 * ```
 */
export async function add(uid: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const request = admin.check("createApplication", { body: { uid, name: admin.text("name") ?? "" } });
  printAnswer(await admin.call("createApplication", request), options);
}

/**
 * `plant-store applications list`.
 *
 * @example
 * ```ts
 * await list({ senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", json: true });
 * ```
 */
export async function list(options: AdminOptions): Promise<void> {
  printAnswer(await adminSession(options).call("listApplications", {}), options, "applications");
}

/**
 * `plant-store applications show <app>`.
 *
 * @example
 * ```ts
 * await show("cust_42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function show(app: string, options: AdminOptions): Promise<void> {
  printAnswer(await adminSession(options).call("getApplication", { params: { id: app } }), options);
}

/**
 * `plant-store applications update <app> [--name] [--uid]`.
 *
 * @example
 * ```ts
 * await update("cust_42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", name: "Acme Ltd" });
 * ```
 */
export async function update(app: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const name = admin.text("name");
  const uid = admin.text("uid");
  const request = admin.check("updateApplication", {
    params: { id: app },
    body: { ...(name !== undefined && { name }), ...(uid !== undefined && { uid }) },
  });
  printAnswer(await admin.call("updateApplication", request), options);
}

/**
 * `plant-store applications delete <app>`.
 *
 * @example
 * ```ts
 * await remove("cust_42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function remove(app: string, options: AdminOptions): Promise<void> {
  printAnswer(await adminSession(options).call("deleteApplication", { params: { id: app } }), options);
}

/**
 * `plant-store applications revoke-links <app>`.
 *
 * @example
 * ```ts
 * await revokeLinks("cust_42", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function revokeLinks(app: string, options: AdminOptions): Promise<void> {
  printAnswer(await adminSession(options).call("revokePortalLinks", { params: { id: app } }), options);
}
