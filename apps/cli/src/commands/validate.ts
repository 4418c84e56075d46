import { readFileSync } from "node:fs";
import { type Issue, parseNewPlant } from "@plant-store/core";
import { CliError, paint, printJson, readStdin } from "../output.js";

/**
 * `plant-store validate [file|-]`: one JSON payload, or NDJSON (one per line). Every error names its JSON
 * pointer (and line); exit 1 if any payload is invalid.
 *
 * @example
 * ```ts
 * await validate("plants.ndjson", { json: true });
 * ```
 */
export async function validate(file: string, options: { lossless?: boolean; json?: boolean }): Promise<void> {
  let text: string;
  try {
    text = file === "-" ? (await readStdin()).toString() : readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      2,
    );
  }
  const mode = options.lossless ? "lossless" : "safe";
  const check = (raw: string) =>
    mode === "lossless" ? parseNewPlant(raw, { mode: "lossless" }) : parseNewPlant(raw, { mode: "safe" });
  // Input that parses as one JSON value is one document (pretty-printed JSON spans lines); otherwise NDJSON.
  const items: { line: number; raw: string }[] =
    oneJsonValue(text) || !text.trim().includes("\n")
      ? [{ line: 1, raw: text }]
      : text.split("\n").flatMap((raw, i) => (raw.trim() === "" ? [] : [{ line: i + 1, raw }]));
  if (items.length === 0 || text.trim() === "")
    throw new CliError("No payload to validate: the input is empty.", 1);
  let invalid = 0;
  for (const { line, raw } of items) {
    const result = check(raw);
    const issues: Issue[] = result.ok ? [] : result.issues;
    if (!result.ok) invalid++;
    if (options.json) printJson({ line, valid: result.ok, issues });
    else if (result.ok) process.stdout.write(`${paint("green", "valid")}   line ${line}\n`);
    else {
      for (const issue of issues) {
        process.stdout.write(
          `${paint("red", "invalid")} line ${line} ${issue.pointer || "/"}: ${issue.message}\n`,
        );
      }
    }
  }
  if (!options.json) process.stdout.write(`${items.length - invalid} valid, ${invalid} invalid\n`);
  if (invalid > 0) process.exitCode = 1;
}

function oneJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
