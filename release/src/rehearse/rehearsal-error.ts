/**
 * A failed rehearsal: which step, which package, what to do. Its message says all three.
 *
 * @example
 * ```ts
 * throw new RehearsalError("release 1: publish", "@plant-store/spec", "read npm's answer below", output);
 * ```
 */
export class RehearsalError extends Error {
  constructor(
    readonly step: string,
    readonly pkg: string | undefined,
    readonly hint: string,
    detail: string,
  ) {
    super(
      `release rehearsal failed at step "${step}"${pkg ? ` for ${pkg}` : ""}\n  what to do: ${hint}\n\n${detail}`,
    );
    this.name = "RehearsalError";
  }
}
