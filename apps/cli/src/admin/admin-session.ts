import {
  type AdminAnswer,
  type AdminOperationId,
  type AdminRequest,
  type AdminResult,
  createAdminClient,
  DEFAULT_ADMIN_TIMEOUT_MS,
} from "@plant-store/admin-api";
import { CliError } from "../cli-error.js";
import {
  bearerToken,
  fetchFailure,
  firstOf,
  httpUrl,
  MAX_TIMEOUT_MS,
  notEmpty,
  printJson,
  redirectNote,
  whole,
} from "../output.js";

/** The options every admin command takes, and its own flags by name. */
export interface AdminOptions {
  senderUrl?: string;
  adminToken?: string;
  timeout?: string;
  json?: boolean;
  [key: string]: unknown;
}

/** The admin client, as an admin command uses it: every refusal already a CLI error with its exit code. */
export interface AdminSession {
  /** A request checked with the sender's own schemas before anything is sent; a refusal names the flag (exit 2). */
  check<Op extends AdminOperationId>(operation: Op, request: AdminRequest<Op>): AdminRequest<Op>;
  /** The sender's answer; no answer, or a non-2xx one, is an error (exit 1). */
  call<Op extends AdminOperationId>(operation: Op, request: AdminRequest<Op>): Promise<AdminAnswer<Op>>;
  /**
   * The sender's answer, or its refusal as a value (status, message and body, e.g. a 422's `problems`) for a
   * command that explains it in its own terms; no answer at all is an error (exit 1).
   */
  send<Op extends AdminOperationId>(
    operation: Op,
    request: AdminRequest<Op>,
  ): Promise<
    { ok: true; value: AdminAnswer<Op> } | { ok: false; status: number; message: string; body: unknown }
  >;
  /** A text flag's value; given but empty is a usage error. */
  text(key: string): string | undefined;
}

/** The flag or argument each request field comes from, to name it when the field is refused. */
const FLAGS: Record<string, string> = {
  id: "<id>",
  url: "<url>",
  token: "--token",
  secret: "--secret",
  kind: "--kind",
  value: "--value",
  graceSeconds: "--grace",
  reason: "--reason",
  since: "--since",
  "idempotency-key": "--idempotency-key",
  state: "--state",
  subscriptionId: "--subscription",
  limit: "--limit",
  cursor: "--cursor",
};

/**
 * Checks the sender's URL, the admin token and `--timeout` (exit 2 when wrong), and opens the admin API's typed
 * client over them.
 *
 * @example
 * ```ts
 * const admin = adminSession({ senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * await admin.call("listSubscriptions", {});
 * ```
 */
export function adminSession(options: AdminOptions): AdminSession {
  if (!options.senderUrl)
    throw new CliError(
      "--sender-url (or PLANT_STORE_SENDER_URL) is required, e.g. http://127.0.0.1:4001.",
      2,
    );
  const base = httpUrl("--sender-url (or PLANT_STORE_SENDER_URL)", options.senderUrl).href;
  // PLANT_STORE_ADMIN_TOKENS is the apps' older name (a list): a shell set up for them works here too.
  const token = options.adminToken ?? firstOf(process.env.PLANT_STORE_ADMIN_TOKENS);
  if (!token) throw new CliError("--admin-token (or PLANT_STORE_ADMIN_TOKEN) is required.", 2);
  bearerToken("--admin-token (or PLANT_STORE_ADMIN_TOKEN)", token);
  const timeoutMs = whole(
    "--timeout",
    String(options.timeout ?? DEFAULT_ADMIN_TIMEOUT_MS),
    MAX_TIMEOUT_MS,
    " ms (10 minutes)",
  );
  const client = createAdminClient({ baseUrl: base, token, timeoutMs });
  return {
    check(operation, request) {
      const checked = client.check(operation, request);
      if (!checked.ok) throw new CliError(`${FLAGS[checked.field] ?? checked.field}: ${checked.message}`, 2);
      return request;
    },
    call: async (operation, request) =>
      answerOf(await client.call(operation, request), base, timeoutMs, options.json === true),
    send: async (operation, request) => {
      const result = await client.call(operation, request);
      if (!result.ok && result.kind === "status") return result;
      return { ok: true, value: answerOf(result, base, timeoutMs, false) };
    },
    text: (key) => notEmpty(`--${key}`, options[key] as string | undefined),
  };
}

/** The answer, or the CLI's message for why there is none (exit 1). */
function answerOf<T>(result: AdminResult<T>, base: string, timeoutMs: number, json: boolean): T {
  if (result.ok) return result.value;
  switch (result.kind) {
    case "unreachable":
      throw new CliError(
        `Cannot reach the sender at ${base}: ${fetchFailure(result.error, timeoutMs, "--timeout")}.`,
      );
    case "redirect":
      throw new CliError(
        `the sender at ${base} answered ${result.status}: ${redirectNote(result.status, result.location) ?? "a redirect"}.`,
      );
    case "not-json":
      throw new CliError(
        `the sender at ${base} did not answer with JSON (status ${result.status}): ${JSON.stringify(result.text.slice(0, 100))}. Is --sender-url the plant-store-sender's admin API?`,
      );
    case "status":
      if (json) printJson(result.body);
      throw new CliError(`the sender answered ${result.status}: ${result.message}`);
  }
}
