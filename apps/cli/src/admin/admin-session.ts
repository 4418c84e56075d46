import {
  type AdminResult,
  adminRoutes,
  createRouteClient,
  DEFAULT_ADMIN_TIMEOUT_MS,
  type RouteAnswer,
  type RouteRequest,
  type RouteTable,
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

/**
 * An admin API's typed client (the sender's, the receiver's), as a command uses it: every refusal already a CLI
 * error with its exit code.
 */
export interface RouteSession<T extends RouteTable> {
  /** A request checked with the app's own schemas before anything is sent; a refusal names the flag (exit 2). */
  check<Op extends keyof T & string>(operation: Op, request: RouteRequest<T, Op>): RouteRequest<T, Op>;
  /** The app's answer; no answer, or a non-2xx one, is an error (exit 1). */
  call<Op extends keyof T & string>(operation: Op, request: RouteRequest<T, Op>): Promise<RouteAnswer<T, Op>>;
  /**
   * The app's answer, or its refusal as a value (status, message and body, e.g. a 422's `problems`) for a
   * command that explains it in its own terms; no answer at all is an error (exit 1).
   */
  send<Op extends keyof T & string>(
    operation: Op,
    request: RouteRequest<T, Op>,
  ): Promise<
    { ok: true; value: RouteAnswer<T, Op> } | { ok: false; status: number; message: string; body: unknown }
  >;
  /** A text flag's value; given but empty is a usage error. */
  text(key: string): string | undefined;
}

/** The sender's admin API, as an admin command uses it. */
export type AdminSession = RouteSession<typeof adminRoutes>;

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
  name: "--name",
  eventTypes: "--event-type",
  paused: "--paused",
  ordered: "--ordered",
  maxInFlight: "--max-in-flight",
  rateLimit: "--rate-limit",
  headers: "--header",
  timeoutMs: "--attempt-timeout",
  uid: "--uid",
  description: "--description",
  metadata: "--metadata",
  application: "--application",
  signing: "--signing",
  eventId: "--event",
  failed: "--failed",
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
  return routeSession(adminRoutes, SENDER, options, options.senderUrl);
}

/**
 * Checks an app's URL (`url`, from the app's flag), the admin token and `--timeout` (exit 2 when wrong), and opens
 * the typed client of the admin API that `routes` describes over them.
 *
 * @example
 * ```ts
 * const rx = routeSession(receiverRoutes, RECEIVER, options, options.receiverUrl);
 * ```
 */
export function routeSession<T extends RouteTable>(
  routes: T,
  app: AdminApp,
  options: AdminOptions,
  url: string | undefined,
): RouteSession<T> {
  const { base, token, timeoutMs } = connection(options, url, app);
  const client = createRouteClient(routes, { baseUrl: base, token, timeoutMs });
  return {
    check(operation, request) {
      const checked = client.check(operation, request);
      if (!checked.ok) throw new CliError(`${flagOf(checked.field)}: ${checked.message}`, 2);
      return request;
    },
    call: async (operation, request) =>
      answerFrom(app, await client.call(operation, request), base, timeoutMs, options.json === true),
    send: async (operation, request) => {
      const result = await client.call(operation, request);
      if (!result.ok && result.kind === "status") return result;
      return { ok: true, value: answerFrom(app, result, base, timeoutMs, false) };
    },
    text: (key) => notEmpty(`--${key}`, options[key] as string | undefined),
  };
}

/** The flag or argument a refused request field comes from. */
export const flagOf = (field: string): string => FLAGS[field] ?? field;

/** Checks an app's URL, the admin token and `--timeout` (exit 2 when wrong). */
function connection(
  options: AdminOptions,
  url: string | undefined,
  app: AdminApp,
): { base: string; token: string; timeoutMs: number } {
  const where = `${app.urlFlag} (or ${app.env})`;
  if (!url) throw new CliError(`${where} is required, e.g. ${app.example}.`, 2);
  const base = httpUrl(where, url).href;
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
  return { base, token, timeoutMs };
}

/**
 * Which app an admin command talks to: its name in messages, the flag and the environment variable that say where
 * it is, and an example of that URL.
 */
export interface AdminApp {
  name: "sender" | "receiver";
  urlFlag: string;
  env: string;
  example: string;
}

const SENDER: AdminApp = {
  name: "sender",
  urlFlag: "--sender-url",
  env: "PLANT_STORE_SENDER_URL",
  example: "http://127.0.0.1:4001",
};

/** An admin answer, or the CLI's message for why there is none (exit 1), naming the app asked. */
function answerFrom<T>(
  app: AdminApp,
  result: AdminResult<T>,
  base: string,
  timeoutMs: number,
  json: boolean,
): T {
  if (result.ok) return result.value;
  switch (result.kind) {
    case "unreachable":
      throw new CliError(
        `Cannot reach the ${app.name} at ${base}: ${fetchFailure(result.error, timeoutMs, "--timeout")}.`,
      );
    case "redirect":
      throw new CliError(
        `the ${app.name} at ${base} answered ${result.status}: ${redirectNote(result.status, result.location) ?? "a redirect"}.`,
      );
    case "not-json":
      throw new CliError(
        `the ${app.name} at ${base} did not answer with JSON (status ${result.status}): ${JSON.stringify(result.text.slice(0, 100))}. Is ${app.urlFlag} the plant-store-${app.name}'s admin API?`,
      );
    case "status":
      if (json) printJson(result.body);
      throw new CliError(`the ${app.name} answered ${result.status}: ${result.message}`);
  }
}
