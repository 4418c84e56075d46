import {
  type AdminAnswer,
  type AdminOperationId,
  type AdminRequest,
  type AdminResult,
  createAdminClient,
} from "@plant-store/admin-api";
import type { Command } from "commander";
import { commandEvent, type EventOptions } from "../events.js";
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
 * Sender administration over its admin API, through `@plant-store/admin-api`'s typed client: each command is one
 * operation of the API's route table, checked locally with the route's own schemas before anything is sent (exit
 * 2, as for every usage error). Errors from the sender are printed with their message; any non-2xx answer exits 1.
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
  const client = createAdminClient({ baseUrl: base, token: options.adminToken, timeoutMs });
  const text = (key: string) => notEmpty(`--${key}`, options[key] as string | undefined);
  const id = positional[0] as string;

  // What the sender would refuse anyway is refused here, with the sender's own schemas, before anything is sent.
  const check = <Op extends AdminOperationId>(operation: Op, request: AdminRequest<Op>): AdminRequest<Op> => {
    const checked = client.check(operation, request);
    if (!checked.ok) throw new CliError(`${FLAGS[checked.field] ?? checked.field}: ${checked.message}`, 2);
    return request;
  };
  const call = async <Op extends AdminOperationId>(
    operation: Op,
    request: AdminRequest<Op>,
  ): Promise<AdminAnswer<Op>> => answerOf(await client.call(operation, request), base, timeoutMs, options);

  let result: Record<string, unknown>;
  switch (name) {
    case "subscriptions.add": {
      httpUrl("<url>", id);
      const token = text("token");
      const secret = text("secret");
      const eventTypes = text("eventTypes");
      const signing = text("signing");
      const request = check("createSubscription", {
        body: {
          url: id,
          ...(token !== undefined && { token }),
          ...(secret !== undefined && { secret }),
          ...(eventTypes !== undefined && { eventTypes: eventTypes.split(",").map((type) => type.trim()) }),
          ...(signing !== undefined && { signing: signing as never }),
        },
      });
      result = await call("createSubscription", request);
      break;
    }
    case "subscriptions.list":
      result = await call("listSubscriptions", {});
      break;
    case "subscriptions.show":
      result = await call("getSubscription", { params: { id } });
      break;
    case "subscriptions.disable": {
      const reason = text("reason");
      result = await call(
        "disableSubscription",
        check("disableSubscription", { params: { id }, body: reason ? { reason } : {} }),
      );
      break;
    }
    case "subscriptions.enable":
      result = await call("enableSubscription", { params: { id } });
      break;
    case "subscriptions.rotate": {
      const value = text("value");
      const grace = text("grace");
      const graceSeconds = grace === undefined ? undefined : /^\d+$/.test(grace) ? Number(grace) : Number.NaN;
      const body =
        options.kind === "token"
          ? {
              kind: "token" as const,
              ...(value !== undefined && { value }),
              ...(graceSeconds !== undefined && { graceSeconds: graceSeconds as never }),
            }
          : {
              kind: "secret" as const,
              ...(value !== undefined && { value }),
              ...(graceSeconds !== undefined && { graceSeconds }),
            };
      result = await call("rotateCredential", check("rotateCredential", { params: { id }, body }));
      break;
    }
    case "publish": {
      const key = options.idempotencyKey as string | undefined;
      const headers = key === undefined ? {} : { "idempotency-key": key };
      // --event names a webhook of the contract (or of --spec); the sender checks the body against its schema.
      const { entry } = await commandEvent(options as EventOptions);
      const query = { type: entry.type };
      check("publishEvent", { query, headers, body: "" });
      const body = await payloadBytes(options as never, false, entry);
      result = await call("publishEvent", { query, headers, body });
      break;
    }
    case "deliveries.list": {
      const query = {
        ...(options.state !== undefined && { state: String(options.state) as never }),
        ...(options.subscription !== undefined && { subscriptionId: String(options.subscription) }),
        ...(options.limit !== undefined && { limit: String(options.limit) }),
        ...(options.cursor !== undefined && { cursor: String(options.cursor) }),
      };
      result = await call("listDeliveries", check("listDeliveries", { query }));
      break;
    }
    case "deliveries.show": {
      const request = check("getDelivery", { params: { id } });
      const delivery = await call("getDelivery", request);
      const attempts = await call("listAttempts", { params: { id } });
      result = { ...delivery, attemptLog: attempts.data };
      break;
    }
    case "deliveries.resend":
      result = await call("resendDelivery", check("resendDelivery", { params: { id } }));
      break;
    case "recover":
      result = await call(
        "recoverSubscription",
        check("recoverSubscription", { params: { id }, body: { since: String(options.since) } }),
      );
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

/** The answer, or the CLI's message for why there is none (exit 1). */
function answerOf<T>(result: AdminResult<T>, base: string, timeoutMs: number, options: AdminOptions): T {
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
      if (options.json) printJson(result.body);
      throw new CliError(`the sender answered ${result.status}: ${result.message}`);
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
