import { createMessageId, signatureHeader } from "@plant-store/core";
import { WEBHOOK_HEADERS } from "@plant-store/spec";
import { CliError } from "../../cli-error.js";
import { commandEvent, type EventOptions } from "../../events.js";
import { printJson } from "../../output.js";
import { type PayloadOptions, payloadBytes } from "../../payload.js";

/**
 * `plant-store sign`: the three Standard Webhooks headers for a body, signed with each `--secret` (`v1`) and each
 * `--private-key` (`v1a`).
 *
 * @example
 * ```ts
 * await signCommand({ secret: ["whsec_…"], data: '{"id":1,"name":"Fern"}' });
 * await signCommand({ privateKey: ["whsk_…"], data: '{"id":1,"name":"Fern"}' });
 * ```
 */
export async function signCommand(
  options: PayloadOptions & {
    secret?: string[];
    privateKey?: string[];
    msgId?: string;
    timestamp?: string;
    json?: boolean;
  },
): Promise<void> {
  const secrets = options.secret ?? [];
  const privateKeys = options.privateKey ?? [];
  if (secrets.length === 0 && privateKeys.length === 0) {
    throw new CliError(
      "Sign with --secret whsec_… (v1, HMAC) and/or --private-key whsk_… (v1a, ed25519).",
      2,
    );
  }
  const body = await payloadBytes(options, true, (await commandEvent(options as EventOptions)).entry);
  const id = options.msgId ?? createMessageId();
  if (options.timestamp !== undefined && !/^\d+$/.test(options.timestamp)) {
    throw new CliError("--timestamp must be unix seconds.", 2);
  }
  const timestamp = options.timestamp ? Number(options.timestamp) : Math.floor(Date.now() / 1000);
  let signature: string;
  try {
    signature = await signatureHeader({ secrets, privateKeys, id, timestamp, body });
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  const headers = {
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: signature,
  };
  if (options.json) printJson(headers);
  else for (const [name, value] of Object.entries(headers)) process.stdout.write(`${name}: ${value}\n`);
}
