import { printAnswer } from "../../admin/admin-print.js";
import { type AdminOptions, adminSession } from "../../admin/admin-session.js";
import { CliError } from "../../cli-error.js";
import { commandEvent, type EventOptions } from "../../events.js";
import { type PayloadOptions, payloadBytes } from "../../payload.js";
import { publishFile } from "./publish-file.js";

/** Whether `--file` holds one event per line: `--ndjson`, or a file named `*.ndjson` / `*.jsonl`. */
function isNdjson(options: PayloadOptions & { ndjson?: boolean }): boolean {
  return options.ndjson === true || /\.(ndjson|jsonl)$/i.test(options.file ?? "");
}

/**
 * `plant-store publish`: publishes an event through the sender. `--event` names a webhook of the contract (or of
 * `--spec`); the sender checks the body against its schema. An NDJSON `--file` (see `isNdjson`) publishes one event
 * per line, in batches (`publishFile`).
 *
 * @example
 * ```ts
 * await publish({ senderUrl: "http://127.0.0.1:4001", adminToken: "psk_…", id: "42", name: "Fern" });
 * ```
 */
export async function publish(
  options: AdminOptions & EventOptions & PayloadOptions & { idempotencyKey?: string; ndjson?: boolean },
): Promise<void> {
  const admin = adminSession(options);
  if (isNdjson(options)) {
    if (options.idempotencyKey !== undefined) {
      throw new CliError(
        "--idempotency-key names one event; in an NDJSON file give each line its own idempotencyKey.",
        2,
      );
    }
    if (options.file === undefined) throw new CliError("--ndjson reads --file <path> (or - for stdin).", 2);
    return publishFile(options, admin);
  }
  const key = options.idempotencyKey;
  const headers = key === undefined ? {} : { "idempotency-key": key };
  const { entry } = await commandEvent(options);
  const query = { type: entry.type };
  admin.check("publishEvent", { query, headers, body: "" });
  const body = await payloadBytes(options, false, entry);
  printAnswer(await admin.call("publishEvent", { query, headers, body }), options);
}
