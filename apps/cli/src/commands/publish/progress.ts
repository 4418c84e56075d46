/** A line redrawn in place on a terminal; nothing at all elsewhere (a pipe or a log gets the summary only). */
export interface Progress {
  update(done: number): void;
  end(): void;
}

const WIDTH = 30;

/**
 * A progress bar of `total` events on `stream`, when it is a terminal.
 *
 * @example
 * ```ts
 * const bar = progressBar(2500, process.stderr);
 * bar.update(1000); // [############------------------] 1000/2500 events
 * bar.end();
 * ```
 */
export function progressBar(total: number, stream: NodeJS.WriteStream): Progress {
  if (!stream.isTTY) return { update() {}, end() {} };
  let drawn = false;
  return {
    update(done) {
      const filled = Math.round((done / total) * WIDTH);
      stream.write(`\r[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${done}/${total} events`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write("\n");
    },
  };
}
