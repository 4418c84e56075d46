import { readFileSync } from "node:fs";
import { type Issue, parseEvent } from "@plant-store/core";
import { CliError } from "../../cli-error.js";
import { commandEvent, type EventOptions } from "../../events.js";
import { paint, printJson, readStdin } from "../../output.js";

/**
 * `plant-store validate [file|-]`: one JSON payload, or NDJSON (one per line), against the schema of `--event`
 * (default New Plant). Every error names its JSON pointer (and line); exit 1 if any payload is invalid.
 *
 * @example
 * ```ts
 * await validate("plants.ndjson", { json: true });
 * ```
 */
export async function validate(
  file: string,
  options: EventOptions & { safe?: boolean; json?: boolean },
): Promise<void> {
  const { entry } = await commandEvent(options);
  let bytes: Buffer;
  try {
    bytes = file === "-" ? await readStdin() : readFileSync(file);
  } catch (error) {
    throw new CliError(
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      2,
    );
  }
  // The contract's id is int64: every such id is valid. --safe asks for ids a JavaScript number holds exactly.
  // Bytes, not text, go to the parser: a payload that is not UTF-8 is invalid, as the receiver and sender say.
  const check = (raw: Uint8Array) => parseEvent(entry, raw, { mode: options.safe ? "safe" : "lossless" });
  if (bytes.toString("latin1").trim() === "")
    throw new CliError("No payload to validate: the input is empty.", 1);
  const items = documents(bytes);
  let invalid = 0;
  for (const { line, raw } of items) {
    const result = check(raw);
    let issues: Issue[] = result.ok ? [] : result.issues;
    if (!result.ok) invalid++;
    // One multi-line document: a JSON error's position becomes the line it is on.
    const at =
      !result.ok && result.kind === "json" && items.length === 1 ? errorLine(raw, issues) : undefined;
    if (at !== undefined)
      issues = issues.map((issue) => ({ ...issue, message: `${issue.message} (line ${at})` }));
    const shownLine = at ?? line;
    if (options.json) printJson({ line: shownLine, valid: result.ok, issues });
    else if (result.ok) process.stdout.write(`${paint("green", "valid")}   line ${line}\n`);
    else {
      for (const issue of issues) {
        process.stdout.write(
          `${paint("red", "invalid")} line ${shownLine} ${issue.pointer || "/"}: ${issue.message}\n`,
        );
      }
    }
  }
  if (!options.json) process.stdout.write(`${items.length - invalid} valid, ${invalid} invalid\n`);
  if (invalid > 0) process.exitCode = 1;
}

/**
 * One document, or NDJSON. Input that parses as one JSON value is one document (pretty-printed JSON spans lines);
 * otherwise it is NDJSON when one of its lines is a JSON object by itself, and else one broken document, reported
 * once where it breaks rather than as a failure of every line. Lines are split at 0x0A, which UTF-8 never uses
 * inside a character.
 */
function documents(bytes: Buffer): { line: number; raw: Uint8Array }[] {
  const lines: { line: number; raw: Uint8Array }[] = [];
  let start = 0;
  for (let i = 0, n = 1; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      const raw = bytes.subarray(start, i);
      if (raw.toString("latin1").trim() !== "") lines.push({ line: n, raw });
      start = i + 1;
      n++;
    }
  }
  const one = [{ line: lines[0]?.line ?? 1, raw: bytes as Uint8Array }];
  if (lines.length <= 1 || parsed(bytes) !== undefined) return one;
  return lines.some(({ raw }) => isObject(parsed(raw))) ? lines : one;
}

/** The JSON value of some bytes (a leading BOM ignored), or undefined when they are not JSON. */
function parsed(raw: Uint8Array): unknown {
  try {
    return JSON.parse(
      Buffer.from(raw)
        .toString("utf8")
        .replace(/^\uFEFF/, ""),
    );
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The line of a JSON error's "position N", counted in the document's text. */
function errorLine(raw: Uint8Array, issues: Issue[]): number | undefined {
  const position = /position (\d+)/.exec(issues[0]?.message ?? "")?.[1];
  if (position === undefined) return undefined;
  const text = Buffer.from(raw)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  return text.slice(0, Number(position)).split("\n").length;
}
