/**
 * Ends the process quietly when a reader closes stdout or stderr early (`plant-store … | head -1`): EPIPE is
 * not an error of the command, so no stack trace.
 *
 * @example
 * ```ts
 * exitOnClosedPipes();
 * ```
 */
export function exitOnClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    });
  }
}
