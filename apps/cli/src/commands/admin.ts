import type { Command } from "commander";
import { bearerToken, CliError, fetchFailure, httpUrl, paint, printJson } from "../output.js";
import { payloadBytes } from "../payload.js";

interface AdminOptions {
  senderUrl?: string;
  adminToken?: string;
  json?: boolean;
  [key: string]: unknown;
}

/**
 * Sender administration over its admin API (see the sender's `/openapi.json`). Errors from the sender are
 * printed with their message; any non-2xx answer exits 1.
 *
 * @example
 * ```ts
 * await adminCommand("subscriptions.list", [options, command]);
 * ```
 */
export async function adminCommand(name: string, args: unknown[]): Promise<void> {
  const command = args.at(-1) as Command;
  const options = command.opts() as AdminOptions;
  const positional = args.slice(0, -2) as string[];
  if (!options.senderUrl)
    throw new CliError(
      "--sender-url (or PLANT_STORE_SENDER_URL) is required, e.g. http://127.0.0.1:4001.",
      2,
    );
  const base = httpUrl("--sender-url (or PLANT_STORE_SENDER_URL)", options.senderUrl).href;
  if (!options.adminToken) throw new CliError("--admin-token (or PLANT_STORE_ADMIN_TOKEN) is required.", 2);
  bearerToken("--admin-token (or PLANT_STORE_ADMIN_TOKEN)", options.adminToken);
  const call = async (
    method: string,
    path: string,
    body?: string | Uint8Array,
    headers: Record<string, string> = {},
  ) => {
    let res: Response;
    try {
      res = await fetch(new URL(path, base.endsWith("/") ? base : `${base}/`), {
        method,
        headers: {
          authorization: `Bearer ${options.adminToken}`,
          ...(body !== undefined && { "content-type": "application/json" }),
          ...headers,
        },
        ...(body !== undefined && { body }),
      });
    } catch (error) {
      throw new CliError(`Cannot reach the sender at ${base}: ${fetchFailure(error)}.`);
    }
    const text = await res.text();
    let value: unknown = null;
    try {
      value = text ? JSON.parse(text) : null;
    } catch {
      throw new CliError(
        `the sender at ${base} did not answer with JSON (status ${res.status}): ${JSON.stringify(text.slice(0, 100))}. Is --sender-url the plant-store-sender's admin API?`,
      );
    }
    if (!res.ok) {
      const message = (value as { message?: string } | null)?.message ?? text;
      if (options.json) printJson(value);
      throw new CliError(`the sender answered ${res.status}: ${message}`);
    }
    return value as Record<string, unknown>;
  };
  const id = (i = 0) => encodeURIComponent(positional[i] as string);
  let result: Record<string, unknown>;
  switch (name) {
    case "subscriptions.add":
      result = await call(
        "POST",
        "subscriptions",
        JSON.stringify({
          url: positional[0],
          ...(options.token !== undefined && { token: options.token }),
          ...(options.secret !== undefined && { secret: options.secret }),
        }),
      );
      break;
    case "subscriptions.list":
      result = await call("GET", "subscriptions");
      break;
    case "subscriptions.show":
      result = await call("GET", `subscriptions/${id()}`);
      break;
    case "subscriptions.disable":
      result = await call(
        "POST",
        `subscriptions/${id()}/disable`,
        JSON.stringify(options.reason ? { reason: options.reason } : {}),
      );
      break;
    case "subscriptions.enable":
      result = await call("POST", `subscriptions/${id()}/enable`);
      break;
    case "subscriptions.rotate": {
      if (options.grace !== undefined && !/^\d+$/.test(String(options.grace))) {
        throw new CliError("--grace must be whole seconds.", 2);
      }
      result = await call(
        "POST",
        `subscriptions/${id()}/rotate`,
        JSON.stringify({
          kind: options.kind,
          ...(options.value !== undefined && { value: options.value }),
          ...(options.grace !== undefined && { graceSeconds: Number(options.grace) }),
        }),
      );
      break;
    }
    case "publish": {
      const body = await payloadBytes(options as never);
      const key = options.idempotencyKey as string | undefined;
      result = await call("POST", "events", body, key ? { "idempotency-key": key } : {});
      break;
    }
    case "deliveries.list": {
      const query = new URLSearchParams();
      if (options.state) query.set("state", String(options.state));
      if (options.subscription) query.set("subscriptionId", String(options.subscription));
      if (options.limit !== undefined) {
        const limit = String(options.limit);
        if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000)
          throw new CliError("--limit must be 1 to 1000.", 2);
        query.set("limit", limit);
      }
      if (options.cursor) query.set("cursor", String(options.cursor));
      result = await call("GET", `deliveries${query.size ? `?${query}` : ""}`);
      break;
    }
    case "deliveries.show": {
      const delivery = await call("GET", `deliveries/${id()}`);
      const attempts = await call("GET", `deliveries/${id()}/attempts`);
      result = { ...delivery, attemptLog: attempts.data };
      break;
    }
    case "deliveries.resend":
      result = await call("POST", `deliveries/${id()}/resend`);
      break;
    case "recover":
      if (Number.isNaN(Date.parse(String(options.since)))) {
        throw new CliError("--since must be a date-time, e.g. 2026-11-22T10:00:00Z.", 2);
      }
      result = await call("POST", `subscriptions/${id()}/recover`, JSON.stringify({ since: options.since }));
      break;
    default:
      throw new CliError(`unknown command ${name}`, 2);
  }
  if (options.json) return printJson(result);
  human(name, result);
}

function human(name: string, result: Record<string, unknown>): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (Array.isArray(result.data)) {
    for (const row of result.data as Record<string, unknown>[]) {
      out(
        name.startsWith("subscriptions")
          ? `${row.id}  ${row.enabled ? paint("green", "enabled ") : paint("red", "disabled")}  ${row.url}`
          : `${row.id}  ${String(row.state).padEnd(9)} ${row.messageId}  attempts ${row.attempts}  last ${row.lastStatus ?? row.lastError ?? "-"}`,
      );
    }
    if ((result.data as unknown[]).length === 0) out(paint("dim", "(none)"));
    if (typeof result.nextCursor === "string") {
      out(paint("dim", `(more: add --cursor ${result.nextCursor} for the next page)`));
    }
    return;
  }
  for (const [key, value] of Object.entries(result)) {
    out(`${key}: ${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`);
  }
  if (result.secret || result.token) out(paint("yellow", "Shown once: store the token/secret now."));
}
