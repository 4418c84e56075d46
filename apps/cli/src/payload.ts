import { readFileSync } from "node:fs";
import { examples } from "@plant-store/spec";
import { CliError, readStdin } from "./output.js";

/** Where a command's JSON body comes from. */
export interface PayloadOptions {
  data?: string;
  file?: string;
  id?: string;
  name?: string;
  tag?: string;
}

/**
 * The body to send, byte for byte: `--data`, `--file` (`-` = stdin), `--id/--name/--tag`, or the spec's example.
 *
 * @example
 * ```ts
 * await payloadText({ id: "7", name: "Fern" }); // '{"id":7,"name":"Fern"}'
 * ```
 */
export async function payloadText(options: PayloadOptions): Promise<string> {
  const sources = [
    options.data !== undefined,
    options.file !== undefined,
    options.name !== undefined || options.id !== undefined,
  ];
  if (sources.filter(Boolean).length > 1) {
    throw new CliError("Give the payload one way: --data, --file, or --id/--name/--tag.", 2);
  }
  if (options.data !== undefined) return options.data;
  if (options.file === "-") return readStdin();
  if (options.file !== undefined) {
    try {
      return readFileSync(options.file, "utf8");
    } catch (error) {
      throw new CliError(
        `Cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        2,
      );
    }
  }
  if (options.name !== undefined || options.id !== undefined) {
    if (options.id !== undefined && !/^-?\d+$/.test(options.id))
      throw new CliError("--id must be an integer.", 2);
    const id = options.id ?? "1";
    const parts = [`"id":${id}`, `"name":${JSON.stringify(options.name ?? "Monstera deliciosa")}`];
    if (options.tag !== undefined) parts.push(`"tag":${JSON.stringify(options.tag)}`);
    return `{${parts.join(",")}}`;
  }
  return exampleText();
}

/**
 * The spec's basic example payload, exactly as the spec ships it.
 *
 * @example
 * ```ts
 * exampleText(); // '{ "id": 1, "name": "Monstera deliciosa", "tag": "tropical" }'
 * ```
 */
export function exampleText(): string {
  const basic = examples.find((e) => e.group === "valid" && e.name === "basic") ?? examples[0];
  if (!basic) throw new CliError("The spec package has no example payload.");
  return basic.raw;
}
