/**
 * An expected failure: its message goes to stderr (no stack) and `exitCode` becomes the process's.
 *
 * @example
 * ```ts
 * throw new CliError("--count must be a whole number from 1 to 1000.", 2);
 * ```
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
