import { printAnswer } from "../../admin/admin-print.js";
import { type AdminOptions, type AdminSession, adminSession } from "../../admin/admin-session.js";
import { headerObject, metadataObject, numberOrNone } from "../../admin/endpoint-flags.js";
import { CliError } from "../../cli-error.js";
import { httpUrl } from "../../output.js";

/**
 * `plant-store subscriptions add <url>`: subscribes a receiver. The token and secret are printed only when the
 * sender generated them: the ones given on the command line are never echoed.
 *
 * @example
 * ```ts
 * await add("https://plants.example.com/plant/webhook", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function add(url: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  httpUrl("<url>", url);
  const token = admin.text("token");
  const secret = admin.text("secret");
  const eventTypes = admin.text("eventTypes");
  const signing = admin.text("signing");
  const application = admin.text("application");
  const request = admin.check("createSubscription", {
    body: {
      url,
      ...(token !== undefined && { token }),
      ...(secret !== undefined && { secret }),
      ...(eventTypes !== undefined && { eventTypes: typeList(eventTypes) }),
      ...(signing !== undefined && { signing: signing as never }),
      ...(application !== undefined && { application }),
      ...fieldsOf(admin, options),
    },
  });
  const result: Record<string, unknown> = await admin.call("createSubscription", request);
  if (options.token !== undefined) delete result.token;
  if (options.secret !== undefined) delete result.secret;
  printAnswer(result, options);
}

/**
 * `plant-store subscriptions update <id> […]`: each flag given replaces that field (`--metadata` the whole map,
 * `--header` the whole set; `--rate-limit none` and `--no-headers` remove them).
 *
 * @example
 * ```ts
 * await update("sub_…", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", rateLimit: "5" });
 * ```
 */
export async function update(id: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const url = admin.text("url");
  if (url !== undefined) httpUrl("--url", url);
  const eventTypes = admin.text("eventTypes");
  const signing = admin.text("signing");
  if (eventTypes !== undefined && options.allTypes === true) {
    throw new CliError("--event-types and --all-types contradict each other; give one.", 2);
  }
  if (options.header !== undefined && options.headers === false) {
    throw new CliError("--header and --no-headers contradict each other; give one.", 2);
  }
  const body = {
    ...(url !== undefined && { url }),
    ...(eventTypes !== undefined && { eventTypes: typeList(eventTypes) }),
    ...(options.allTypes === true && { eventTypes: null }),
    ...(signing !== undefined && { signing: signing as never }),
    ...fieldsOf(admin, options),
    ...(options.headers === false && { headers: null }),
  };
  printAnswer(
    await admin.call("updateSubscription", admin.check("updateSubscription", { params: { id }, body })),
    options,
  );
}

/** `--event-types a,b` as a list. */
const typeList = (text: string): string[] => text.split(",").map((type) => type.trim());

/** The flags of a subscription's own fields and endpoint options, as the request's fields. */
function fieldsOf(admin: AdminSession, options: AdminOptions) {
  const uid = admin.text("uid");
  const description = options.description as string | undefined;
  const metadata = options.metadata as string[] | undefined;
  const headers = options.header as string[] | undefined;
  const rateLimit = numberOrNone(admin, "rate-limit", "rateLimit");
  return {
    ...(uid !== undefined && { uid }),
    ...(description !== undefined && { description }),
    ...(metadata !== undefined && { metadata: metadataObject(metadata) }),
    ...(rateLimit !== undefined && { rateLimit }),
    ...(headers !== undefined && { headers: headerObject(headers) }),
  };
}

/**
 * `plant-store subscriptions list`.
 *
 * @example
 * ```ts
 * await list({ senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", json: true });
 * ```
 */
export async function list(options: AdminOptions): Promise<void> {
  printAnswer(await adminSession(options).call("listSubscriptions", {}), options, "subscriptions");
}

/**
 * `plant-store subscriptions show <id>`.
 *
 * @example
 * ```ts
 * await show("sub_…", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function show(id: string, options: AdminOptions): Promise<void> {
  printAnswer(await adminSession(options).call("getSubscription", { params: { id } }), options);
}

/**
 * `plant-store subscriptions disable <id> [--reason]`.
 *
 * @example
 * ```ts
 * await disable("sub_…", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", reason: "maintenance" });
 * ```
 */
export async function disable(id: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const reason = admin.text("reason");
  const request = admin.check("disableSubscription", { params: { id }, body: reason ? { reason } : {} });
  printAnswer(await admin.call("disableSubscription", request), options);
}

/**
 * `plant-store subscriptions enable <id>`.
 *
 * @example
 * ```ts
 * await enable("sub_…", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…" });
 * ```
 */
export async function enable(id: string, options: AdminOptions): Promise<void> {
  printAnswer(await adminSession(options).call("enableSubscription", { params: { id } }), options);
}

/**
 * `plant-store subscriptions rotate <id> --kind token|secret`: a given `--value` is never echoed; a generated one is
 * printed once.
 *
 * @example
 * ```ts
 * await rotate("sub_…", { senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", kind: "secret", grace: "86400" });
 * ```
 */
export async function rotate(id: string, options: AdminOptions): Promise<void> {
  const admin = adminSession(options);
  const value = admin.text("value");
  const grace = admin.text("grace");
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
  const result: Record<string, unknown> = await admin.call(
    "rotateCredential",
    admin.check("rotateCredential", { params: { id }, body }),
  );
  if (options.value !== undefined) {
    delete result.token;
    delete result.secret;
  }
  printAnswer(result, options);
}
