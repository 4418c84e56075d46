import { type VerifyFailure, verify } from "@plant-store/core";
import { WEBHOOK_HEADERS } from "@plant-store/spec";
import { CliError } from "../../cli-error.js";
import { commandEvent, type EventOptions } from "../../events.js";
import { paint, printJson } from "../../output.js";
import { type PayloadOptions, payloadBytes } from "../../payload.js";

const WHY: Record<VerifyFailure, string> = {
  missing_headers: "malformed: a Standard Webhooks header is missing",
  malformed_id: `malformed header: ${WEBHOOK_HEADERS.id}`,
  malformed_timestamp: `malformed header: ${WEBHOOK_HEADERS.timestamp}`,
  malformed_signature: `malformed header: ${WEBHOOK_HEADERS.signature}`,
  timestamp_too_old: "stale: the timestamp is older than the tolerance",
  timestamp_in_future: "future: the timestamp is ahead of the tolerance",
  no_matching_signature: "signature does not match: wrong secret or key, or the body changed",
};

/**
 * `plant-store verify`: checks a signed body and says why it fails; exit 1 when it does.
 *
 * @example
 * ```ts
 * await verifyCommand({ secret: ["whsec_…"], header: ["webhook-id: msg_1", …], data: body, tolerance: "300" });
 * await verifyCommand({ publicKey: ["whpk_…"], header: [ … ], data: body, tolerance: "300" });
 * ```
 */
export async function verifyCommand(
  options: PayloadOptions & {
    secret?: string[];
    publicKey?: string[];
    header?: string[];
    msgId?: string;
    timestamp?: string;
    signature?: string;
    tolerance: string;
    json?: boolean;
  },
): Promise<void> {
  const headers: Record<string, string> = {};
  for (const header of options.header ?? []) {
    const colon = header.indexOf(":");
    if (colon < 1) throw new CliError(`--header '${header}' is not 'name: value'.`, 2);
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  if (!/^\d+$/.test(options.tolerance)) throw new CliError("--tolerance must be whole seconds.", 2);
  if (!options.secret?.length && !options.publicKey?.length) {
    throw new CliError(
      "Verify with --secret whsec_… (v1, HMAC) and/or --public-key whpk_… (v1a, ed25519).",
      2,
    );
  }
  const body = await payloadBytes(options, true, (await commandEvent(options as EventOptions)).entry);
  let result: Awaited<ReturnType<typeof verify>>;
  try {
    result = await verify({
      secrets: options.secret ?? [],
      publicKeys: options.publicKey ?? [],
      id: options.msgId ?? headers[WEBHOOK_HEADERS.id],
      timestamp: options.timestamp ?? headers[WEBHOOK_HEADERS.timestamp],
      signature: options.signature ?? headers[WEBHOOK_HEADERS.signature],
      body,
      toleranceSeconds: Number(options.tolerance),
    });
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  if (options.json)
    printJson(
      result.ok
        ? { valid: true }
        : { valid: false, code: result.code, reason: WHY[result.code], message: result.message },
    );
  else if (result.ok) process.stdout.write(`${paint("green", "valid")} signature\n`);
  else process.stdout.write(`${paint("red", "invalid")}: ${WHY[result.code]}\n  ${result.message}\n`);
  if (!result.ok) process.exitCode = 1;
}
