import { parseDateTime, parseSecret } from "@plant-store/core";
import { MAX_GRACE_MS } from "@plant-store/store";
import type { Command } from "commander";
import {
  bearerToken,
  CliError,
  fetchFailure,
  firstOf,
  httpUrl,
  MAX_TIMEOUT_MS,
  notEmpty,
  paint,
  printJson,
  redirectNote,
  whole,
} from "../output.js";
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
  // PLANT_STORE_ADMIN_TOKENS is the apps' older name (a list): a shell set up for them works here too.
  options.adminToken ??= firstOf(process.env.PLANT_STORE_ADMIN_TOKENS);
  if (!options.adminToken) throw new CliError("--admin-token (or PLANT_STORE_ADMIN_TOKEN) is required.", 2);
  bearerToken("--admin-token (or PLANT_STORE_ADMIN_TOKEN)", options.adminToken);
  const timeoutMs = whole(
    "--timeout",
    String(options.timeout ?? DEFAULT_TIMEOUT_MS),
    MAX_TIMEOUT_MS,
    " ms (10 minutes)",
  );
  // What the sender would refuse anyway is refused here, before anything is sent (exit 2, as for every usage error).
  checkLocally(name, positional, options);
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
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new CliError(
        `Cannot reach the sender at ${base}: ${fetchFailure(error, timeoutMs, "--timeout")}.`,
      );
    }
    const redirect = redirectNote(res.status, res.headers.get("location"));
    if (redirect) throw new CliError(`the sender at ${base} answered ${res.status}: ${redirect}.`);
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
      result = await call("POST", `subscriptions/${id()}/recover`, JSON.stringify({ since: options.since }));
      break;
    default:
      throw new CliError(`unknown command ${name}`, 2);
  }
  // Credentials are printed only when the sender generated them: the ones given on the command line are never echoed.
  if (name === "subscriptions.add") {
    if (options.token !== undefined) delete result.token;
    if (options.secret !== undefined) delete result.secret;
  }
  if (name === "subscriptions.rotate" && options.value !== undefined) {
    delete result.token;
    delete result.secret;
  }
  if (options.json) return printJson(result);
  human(name, result);
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_GRACE_SECONDS = MAX_GRACE_MS / 1000;

function checkLocally(name: string, positional: string[], options: AdminOptions): void {
  const text = (key: string) => notEmpty(`--${key}`, options[key] as string | undefined);
  const secret = (flag: string, value: string) => {
    try {
      parseSecret(value);
    } catch (error) {
      throw new CliError(`${flag}: ${(error as Error).message}`, 2);
    }
  };
  switch (name) {
    case "subscriptions.add": {
      httpUrl("<url>", positional[0] as string);
      const token = text("token");
      if (token !== undefined) bearerToken("--token", token);
      const given = text("secret");
      if (given !== undefined) secret("--secret", given);
      break;
    }
    case "subscriptions.rotate": {
      const value = text("value");
      if (value !== undefined) {
        if (options.kind === "token") bearerToken("--value", value);
        else secret("--value", value);
      }
      if (options.grace !== undefined) {
        if (options.kind === "token") {
          throw new CliError("--grace applies to secrets only: a new token replaces the old one at once.", 2);
        }
        const grace = String(options.grace);
        if (!/^\d+$/.test(grace) || Number(grace) > MAX_GRACE_SECONDS) {
          throw new CliError(`--grace must be whole seconds from 0 to ${MAX_GRACE_SECONDS} (7 days).`, 2);
        }
      }
      break;
    }
    case "recover":
      if (parseDateTime(String(options.since)) === null) {
        throw new CliError(
          "--since must be an RFC 3339 date-time that exists, e.g. 2026-11-22T10:00:00Z (or …+02:00).",
          2,
        );
      }
      break;
    case "publish": {
      const key = options.idempotencyKey;
      if (key !== undefined && !/^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/.test(String(key))) {
        throw new CliError(
          "--idempotency-key must be 1 to 255 visible ASCII characters (spaces only inside), as it goes in a header.",
          2,
        );
      }
      break;
    }
  }
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
