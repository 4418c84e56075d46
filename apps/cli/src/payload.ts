import { readFileSync } from "node:fs";
import { stringifyJson } from "@plant-store/core";
import { DEFAULT_EVENT_TYPE, examples, type WebhookEntry } from "@plant-store/spec";
import { CliError } from "./cli-error.js";
import { readStdin } from "./output.js";

/** Where a command's JSON body comes from. */
export interface PayloadOptions {
  data?: string;
  file?: string;
  id?: string;
  name?: string;
  tag?: string;
  /** sign/verify: the spec's example, asked for explicitly. */
  example?: boolean;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The body to send, byte for byte: `--data`, `--file` (`-` = stdin, read as bytes), `--id/--name/--tag` (any of
 * them; the others come from the spec's example), `--example`, or — unless `required` — the spec's example.
 * Two sources at once, or none when `required`, is a usage error.
 *
 * @example
 * ```ts
 * await payloadBytes({ id: "7", name: "Fern" }); // the bytes of '{"id":7,"name":"Fern"}'
 * ```
 */
export async function payloadBytes(
  options: PayloadOptions,
  required = false,
  entry?: WebhookEntry,
): Promise<Buffer> {
  const fields = (["id", "name", "tag"] as const)
    .filter((f) => options[f] !== undefined)
    .map((f) => `--${f}`);
  const sources = [
    ...(options.data !== undefined ? ["--data"] : []),
    ...(options.file !== undefined ? ["--file"] : []),
    ...(fields.length > 0 ? [fields.join("/")] : []),
    ...(options.example ? ["--example"] : []),
  ];
  if (sources.length > 1) {
    throw new CliError(
      `${sources.join(" and ")} conflict: give the payload one way: --data, --file, or --id/--name/--tag.`,
      2,
    );
  }
  if (sources.length === 0 && required) {
    throw new CliError(
      "Which body? Give --data '<json>', --file <path> (- for stdin), --id/--name/--tag, or --example for the spec's example.",
      2,
    );
  }
  if (options.data !== undefined) return Buffer.from(options.data);
  if (options.file === "-") return readStdin();
  if (options.file !== undefined) {
    try {
      return readFileSync(options.file);
    } catch (error) {
      throw new CliError(
        `Cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        2,
      );
    }
  }
  if (fields.length > 0) {
    if (entry && entry.type !== DEFAULT_EVENT_TYPE) {
      throw new CliError(
        `${fields.join("/")} build a New Plant; for ${entry.type} give the payload with --data or --file (or none: its example).`,
        2,
      );
    }
    const example = JSON.parse(exampleText()) as { id: number; name: string; tag?: string };
    const id = options.id ?? String(example.id);
    if (!/^-?(0|[1-9]\d*)$/.test(id)) {
      throw new CliError(
        "--id must be an integer as JSON writes it (no leading zeros, no '+'), e.g. --id 7.",
        2,
      );
    }
    if (BigInt(id) < INT64_MIN || BigInt(id) > INT64_MAX) {
      throw new CliError(`--id is outside the int64 range (${INT64_MIN} to ${INT64_MAX}).`, 2);
    }
    const parts = [`"id":${id}`, `"name":${JSON.stringify(options.name ?? example.name)}`];
    const tag = options.tag ?? example.tag;
    if (tag !== undefined) parts.push(`"tag":${JSON.stringify(tag)}`);
    return Buffer.from(`{${parts.join(",")}}`);
  }
  return Buffer.from(exampleText(entry));
}

/**
 * An event's example payload: New Plant's basic example exactly as the spec ships it, or the first example of another
 * webhook's request body in the document.
 *
 * @example
 * ```ts
 * exampleText(); // '{ "id": 1, "name": "Monstera deliciosa", "tag": "tropical" }'
 * ```
 */
export function exampleText(entry?: WebhookEntry): string {
  if (entry && entry.type !== DEFAULT_EVENT_TYPE) {
    // Another webhook's example, from the document (spec/examples/ holds New Plant's exact bytes).
    const example = entry.examples[0];
    if (!example) {
      throw new CliError(
        `${entry.type} has no example in the document; give the payload with --data or --file.`,
        2,
      );
    }
    return stringifyJson(example.value);
  }
  const basic = examples.find((e) => e.group === "valid" && e.name === "basic") ?? examples[0];
  if (!basic) throw new CliError("The spec package has no example payload.");
  return basic.raw;
}
