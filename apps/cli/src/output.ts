import { styleText } from "node:util";

/** An expected failure: its message goes to stderr (no stack) and `exitCode` becomes the process's. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

const useColor = () => process.stdout.isTTY === true && !process.env.NO_COLOR;

/**
 * Colours text only on a terminal (and never with NO_COLOR).
 *
 * @example
 * ```ts
 * console.log(paint("green", "200 OK"));
 * ```
 */
export function paint(color: "green" | "red" | "yellow" | "dim" | "bold" | "cyan", text: string): string {
  return useColor() ? styleText(color, text) : text;
}

/**
 * Prints one JSON document on stdout.
 *
 * @example
 * ```ts
 * printJson({ status: 200 });
 * ```
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Reads all of stdin as text.
 *
 * @example
 * ```ts
 * const body = await readStdin();
 * ```
 */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
