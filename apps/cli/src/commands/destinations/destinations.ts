import { printAnswer } from "../../admin/admin-print.js";
import type { AdminOptions } from "../../admin/admin-session.js";
import { headerObject, numberOrNone } from "../../admin/endpoint-flags.js";
import { type ReceiverSession, receiverSession } from "../../admin/receiver-session.js";
import { CliError } from "../../cli-error.js";

type Options = AdminOptions & { receiverUrl?: string };

/**
 * `plant-store destinations list`: each destination's state, queue depth, lag and failed forwards.
 *
 * @example
 * ```ts
 * await list({ receiverUrl: "http://127.0.0.1:4000", adminToken: "psk_…" });
 * ```
 */
export async function list(options: Options): Promise<void> {
  printAnswer(await receiverSession(options).call("listDestinations", {}), options, "destinations");
}

/**
 * `plant-store destinations get <id>`.
 *
 * @example
 * ```ts
 * await get("dst_…", { receiverUrl: "http://127.0.0.1:4000", adminToken: "psk_…" });
 * ```
 */
export async function get(id: string, options: Options): Promise<void> {
  printAnswer(await receiverSession(options).call("getDestination", { params: { id } }), options);
}

/**
 * `plant-store destinations create <name> <url> […]`: the signing secret is printed when the receiver generated
 * it; one given with `--secret` is never echoed.
 *
 * @example
 * ```ts
 * await create("orders", "http://orders.internal/hooks", { receiverUrl, adminToken, eventType: ["newPlant"] });
 * ```
 */
export async function create(name: string, url: string, options: Options): Promise<void> {
  const rx = receiverSession(options);
  const secret = rx.text("secret");
  const request = rx.check("createDestination", {
    body: {
      name,
      url,
      ...settingsOf(rx, options),
      ...(secret !== undefined && { secret }),
      ...(options.paused === true && { paused: true }),
    },
  });
  const result: Record<string, unknown> = await rx.call("createDestination", request);
  if (secret !== undefined) delete result.secret;
  printAnswer(result, options);
}

/**
 * `plant-store destinations update <id> […]`: the flags given replace those settings.
 *
 * @example
 * ```ts
 * await update("dst_…", { receiverUrl, adminToken, rateLimit: "none" });
 * ```
 */
export async function update(id: string, options: Options): Promise<void> {
  const rx = receiverSession(options);
  const name = rx.text("name");
  const url = rx.text("url");
  const body = {
    ...settingsOf(rx, options),
    ...(name !== undefined && { name }),
    ...(url !== undefined && { url }),
    ...(options.allTypes === true && { eventTypes: null }),
  };
  printAnswer(
    await rx.call("updateDestination", rx.check("updateDestination", { params: { id }, body })),
    options,
  );
}

/** The settings flags of create and update, as the request's fields. */
function settingsOf(rx: ReceiverSession, options: Options) {
  if (options.ordered === true && options.concurrent === true) {
    throw new CliError("--ordered and --concurrent contradict each other; give one.", 2);
  }
  const types = options.eventType as string[] | undefined;
  const headers = options.header as string[] | undefined;
  const maxInFlight = numberOrNone(rx, "max-in-flight", "maxInFlight");
  const rateLimit = numberOrNone(rx, "rate-limit", "rateLimit");
  const timeoutMs = numberOrNone(rx, "attempt-timeout", "attemptTimeout");
  const signing = rx.text("signing");
  return {
    ...(signing !== undefined && { signing: signing as never }),
    ...(types !== undefined && { eventTypes: types }),
    ...(headers !== undefined && { headers: headerObject(headers) }),
    ...(options.ordered === true && { ordered: true }),
    ...(options.concurrent === true && { ordered: false }),
    ...(maxInFlight !== undefined && { maxInFlight }),
    ...(rateLimit !== undefined && { rateLimit }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

const ACTIONS = {
  delete: "deleteDestination",
  pause: "pauseDestination",
  resume: "resumeDestination",
  enable: "enableDestination",
  secret: "getDestinationSecret",
} as const;

/**
 * `plant-store destinations delete|pause|resume|enable|secret <id>`.
 *
 * @example
 * ```ts
 * await act("pause", "dst_…", { receiverUrl, adminToken });
 * ```
 */
export async function act(name: keyof typeof ACTIONS, id: string, options: Options): Promise<void> {
  const result = await receiverSession(options).call(ACTIONS[name], { params: { id } });
  if (name === "secret" && !options.json) process.stdout.write(`${(result as { secret: string }).secret}\n`);
  else printAnswer(result as Record<string, unknown>, options);
}

/**
 * `plant-store destinations rotate-secret <id> [--value] [--grace]`: a generated secret is printed; a given one is
 * not echoed.
 *
 * @example
 * ```ts
 * await rotateSecret("dst_…", { receiverUrl, adminToken, grace: "3600" });
 * ```
 */
export async function rotateSecret(id: string, options: Options): Promise<void> {
  const rx = receiverSession(options);
  const value = rx.text("value");
  const grace = rx.text("grace");
  const body = {
    ...(value !== undefined && { value }),
    ...(grace !== undefined && { graceSeconds: /^\d+$/.test(grace) ? Number(grace) : Number.NaN }),
  };
  const result: Record<string, unknown> = await rx.call(
    "rotateDestinationSecret",
    rx.check("rotateDestinationSecret", { params: { id }, body }),
  );
  if (value !== undefined) delete result.secret;
  printAnswer(result, options);
}

/**
 * `plant-store destinations forwards <id> [--state] [--limit] [--cursor]`.
 *
 * @example
 * ```ts
 * await forwards("dst_…", { receiverUrl, adminToken, state: "failed" });
 * ```
 */
export async function forwards(id: string, options: Options): Promise<void> {
  const rx = receiverSession(options);
  const query = { state: rx.text("state"), limit: rx.text("limit"), cursor: rx.text("cursor") };
  const request = rx.check("listForwards", { params: { id }, query: query as never });
  printAnswer(await rx.call("listForwards", request), options, "forwards");
}

/**
 * `plant-store destinations replay <id> --event <webhook-id> | --since <time> | --failed`.
 *
 * @example
 * ```ts
 * await replay("dst_…", { receiverUrl, adminToken, failed: true });
 * ```
 */
export async function replay(id: string, options: Options): Promise<void> {
  const rx = receiverSession(options);
  const eventId = rx.text("event");
  const since = rx.text("since");
  const body = {
    ...(eventId !== undefined && { eventId }),
    ...(since !== undefined && { since }),
    ...(options.failed === true && { failed: true as const }),
  };
  printAnswer(
    await rx.call("replayDestination", rx.check("replayDestination", { params: { id }, body })),
    options,
  );
}
