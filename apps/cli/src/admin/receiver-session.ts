import {
  createReceiverAdminClient,
  type ReceiverAnswer,
  type ReceiverOperationId,
  type ReceiverRequest,
} from "@plant-store/admin-api";
import { CliError } from "../cli-error.js";
import { notEmpty } from "../output.js";
import { type AdminApp, type AdminOptions, answerFrom, connection, flagOf } from "./admin-session.js";

/** The receiver's admin client, as a `destinations` command uses it: every refusal already a CLI error. */
export interface ReceiverSession {
  /** A request checked with the receiver's own schemas before anything is sent; a refusal names the flag (exit 2). */
  check<Op extends ReceiverOperationId>(operation: Op, request: ReceiverRequest<Op>): ReceiverRequest<Op>;
  /** The receiver's answer; no answer, or a non-2xx one, is an error (exit 1). */
  call<Op extends ReceiverOperationId>(
    operation: Op,
    request: ReceiverRequest<Op>,
  ): Promise<ReceiverAnswer<Op>>;
  /** A text flag's value; given but empty is a usage error. */
  text(key: string): string | undefined;
}

const RECEIVER: AdminApp = { name: "receiver", urlFlag: "--receiver-url" };

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
  const { base, token, timeoutMs } = connection(options, options.receiverUrl, {
    ...RECEIVER,
    env: "PLANT_STORE_RECEIVER_URL",
    example: "http://127.0.0.1:4000",
  });
  const client = createReceiverAdminClient({ baseUrl: base, token, timeoutMs });
  return {
    check(operation, request) {
      const checked = client.check(operation, request);
      if (!checked.ok) throw new CliError(`${flagOf(checked.field)}: ${checked.message}`, 2);
      return request;
    },
    call: async (operation, request) =>
      answerFrom(RECEIVER, await client.call(operation, request), base, timeoutMs, options.json === true),
    text: (key) => notEmpty(`--${key}`, options[key] as string | undefined),
  };
}
