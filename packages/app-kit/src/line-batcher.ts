import { writeSync } from "node:fs";
import type pino from "pino";

/** A log destination that also answers `flush`, which pino's `logger.flush()` calls. */
export interface FlushableDestination extends pino.DestinationStream {
  flush(callback?: (error?: Error) => void): void;
}

/** What a line batcher does while its descriptor takes no more bytes (a log pipe whose reader is behind). */
export interface LineBatcherOptions {
  /** Bytes held in memory meanwhile; past this the batcher waits for the descriptor. Default 8 MiB. */
  maxHeldBytes?: number;
  /** How often a blocked descriptor is tried again, in ms. Default 50. */
  retryMs?: number;
  /** Told how many lines were lost because the descriptor refused them (EPIPE: nobody reads it any more). */
  onDropped?: (lines: number) => void;
}

/** One batcher's state, handed to the stages below. */
interface Batcher {
  readonly fd: number;
  readonly maxHeld: number;
  readonly retryMs: number;
  readonly onDropped: ((lines: number) => void) | undefined;
  /** This turn's lines, written when the turn ends. */
  pending: string;
  /** Bytes the descriptor did not take yet, oldest first. */
  readonly held: Buffer[];
  heldBytes: number;
  /** Lines the descriptor refused for good, not yet reported. */
  dropped: number;
  scheduled: boolean;
  retry: NodeJS.Timeout | undefined;
  /** The turn's write, bound once so scheduling it allocates nothing. */
  readonly writeTurn: () => void;
  readonly retryTurn: () => void;
}

/** What each line batcher still holds is written at exit: one process listener for all of them. */
const pendingAtExit = new Set<Batcher>();

/** How long the exit handler keeps trying a blocked descriptor before it gives the held lines up. */
const EXIT_WRITE_MS = 1_000;

/** How long one wait for a blocked descriptor sleeps before it tries again, in ms. */
const BLOCKED_PAUSE_MS = 10;

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * JSON lines to a file descriptor, written once per event-loop turn: the lines logged during one turn are joined and
 * written with one `writeSync` when the turn ends, and at process exit. Under load that is one write syscall for
 * dozens of request lines instead of one each (pino's synchronous default) or a thread-pool round trip each
 * (sonic-boom's asynchronous mode); the same on a pipe, a file or a terminal.
 *
 * No line is dropped while someone reads the descriptor. One that takes no more bytes (EAGAIN: a non-blocking pipe
 * whose reader is behind) is retried on a timer while up to `maxHeldBytes` wait in memory, in order; past that the
 * batcher waits for the reader, as a blocking write would. Only lines the descriptor refuses for good (EPIPE: the
 * reader is gone) are lost, and `onDropped` hears how many once writing works again.
 *
 * @example
 * ```ts
 * const logger = pino({ level: "info" }, createLineBatcher(1));
 * logger.info("written when this turn of the event loop ends");
 * ```
 */
export function createLineBatcher(fd: number, options: LineBatcherOptions = {}): FlushableDestination {
  const batcher: Batcher = {
    fd,
    maxHeld: options.maxHeldBytes ?? 8 * 1024 * 1024,
    retryMs: options.retryMs ?? 50,
    onDropped: options.onDropped,
    pending: "",
    held: [],
    heldBytes: 0,
    dropped: 0,
    scheduled: false,
    retry: undefined,
    writeTurn: () => writePending(batcher),
    retryTurn: () => retryHeld(batcher),
  };
  if (pendingAtExit.size === 0)
    process.once("exit", () => {
      for (const each of pendingAtExit) writeAtExit(each);
    });
  pendingAtExit.add(batcher);
  return {
    write(line: string) {
      batcher.pending += line;
      if (batcher.scheduled) return;
      batcher.scheduled = true;
      setImmediate(batcher.writeTurn);
    },
    flush(callback) {
      writePending(batcher);
      callback?.();
    },
  };
}

/** Counts the lines in `text` (each ends with a newline). */
function lineCount(text: string | Buffer): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

/** Writes what it can of `data`: true once all of it is written, false if it was refused for good, else the rest. */
function writeSome(batcher: Batcher, data: string | Buffer): Buffer | boolean {
  try {
    const written = typeof data === "string" ? writeSync(batcher.fd, data) : writeSync(batcher.fd, data);
    const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.length;
    if (written === bytes) return true;
    return (typeof data === "string" ? Buffer.from(data) : data).subarray(written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EAGAIN" || code === "EBUSY") return typeof data === "string" ? Buffer.from(data) : data;
    batcher.dropped += lineCount(data);
    return false;
  }
}

/** Keeps bytes to write later, after what is held already. */
function hold(batcher: Batcher, bytes: Buffer): void {
  if (bytes.length === 0) return;
  batcher.held.push(bytes);
  batcher.heldBytes += bytes.length;
}

/** Writes the held bytes in order: true once they are all written, false if some were refused, else null. */
function writeHeld(batcher: Batcher): boolean | null {
  const { held } = batcher;
  let all = true;
  while (held.length > 0) {
    const first = held[0] as Buffer;
    const result = writeSome(batcher, first);
    if (typeof result !== "boolean") {
      batcher.heldBytes -= first.length - result.length;
      held[0] = result;
      return null;
    }
    batcher.heldBytes -= first.length;
    held.shift();
    all &&= result;
  }
  return all;
}

/** Writes the held bytes, sleeping between tries while the descriptor is blocked, until `deadline` (ms since epoch). */
function writeHeldBlocking(batcher: Batcher, deadline: number): boolean | null {
  let result = writeHeld(batcher);
  while (result === null && Date.now() < deadline) {
    Atomics.wait(pause, 0, 0, BLOCKED_PAUSE_MS);
    result = writeHeld(batcher);
  }
  return result;
}

function reportDropped(batcher: Batcher): void {
  if (batcher.dropped === 0 || !batcher.onDropped) return;
  const lines = batcher.dropped;
  batcher.dropped = 0;
  batcher.onDropped(lines);
}

// Unreferenced: waiting lines never keep the process alive; the exit handler gives them a last chance.
function retryLater(batcher: Batcher): void {
  batcher.retry ??= setTimeout(batcher.retryTurn, batcher.retryMs);
  batcher.retry.unref();
}

function retryHeld(batcher: Batcher): void {
  batcher.retry = undefined;
  const result = writeHeld(batcher);
  if (result === null) {
    retryLater(batcher);
    return;
  }
  if (result) reportDropped(batcher);
  writePending(batcher);
}

/** The turn's write: the turn's lines in one write, or behind what waits already. */
function writePending(batcher: Batcher): void {
  batcher.scheduled = false;
  if (batcher.pending === "") return;
  const out = batcher.pending;
  batcher.pending = "";
  if (batcher.held.length === 0) {
    const result = writeSome(batcher, out);
    if (typeof result === "boolean") {
      if (result) reportDropped(batcher);
      return;
    }
    hold(batcher, result);
  } else hold(batcher, Buffer.from(out));
  // Past the cap the reader is far behind: wait for it rather than hold more or drop lines.
  if (batcher.heldBytes > batcher.maxHeld) writeHeldBlocking(batcher, Number.POSITIVE_INFINITY);
  if (batcher.held.length > 0) retryLater(batcher);
}

function writeAtExit(batcher: Batcher): void {
  clearTimeout(batcher.retry);
  if (batcher.pending !== "") hold(batcher, Buffer.from(batcher.pending));
  batcher.pending = "";
  const result = writeHeldBlocking(batcher, Date.now() + EXIT_WRITE_MS);
  if (result !== true || batcher.dropped === 0) return;
  reportDropped(batcher); // its line is this batcher's pending line now
  if (batcher.pending !== "") writeSome(batcher, batcher.pending);
  batcher.pending = "";
}
