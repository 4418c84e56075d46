import { closeSync, mkdirSync, openSync, statfsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { StoreConfigError, StoreUnavailableError } from "../errors.js";
import type { ResolvedOptions } from "../options.js";

/**
 * Fails with `disk_low` while the file system holding `path` has less than `minimum` bytes free (for unprivileged
 * writers).
 *
 * @example
 * ```ts
 * checkFreeSpace("/var/lib/plant-store/store.db", 32 * 1024 * 1024);
 * ```
 */
export function checkFreeSpace(path: string, minimum: number): void {
  if (minimum === 0) return;
  const fs = statfsSync(dirname(path), { bigint: true });
  const free = fs.bavail * fs.bsize;
  if (free < BigInt(minimum)) {
    throw new StoreUnavailableError(
      `Only ${mebibytes(free)} is free on the file system of ${path}, less than the ${mebibytes(BigInt(minimum))} required (minFreeDiskBytes): writes would soon fail. Free some space.`,
      { code: "disk_low" },
    );
  }
}

const mebibytes = (n: bigint) => `${(Number(n) / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Creates the database's directory (0700) and file (0600) when they do not exist yet: the sender's database holds
 * subscription credentials, the receiver's the events it was sent. SQLite gives the -wal and -shm files the mode of
 * the database file. An existing file keeps its mode; one that every local user may read is warned about.
 *
 * @example
 * ```ts
 * createPrivately("/var/lib/plant-store/store.db", resolveOptions({}));
 * ```
 */
export function createPrivately(path: string, options: ResolvedOptions): void {
  const existing = statOrNothing(path);
  if (existing?.isDirectory())
    throw new StoreConfigError(
      "invalid_path",
      `The SQLite database path ${path} is a directory; give a file path, e.g. ${join(path, "plant-store.db")}.`,
    );
  if (!existing) makeDirectories(dirname(path));
  try {
    closeSync(openSync(path, "wx", 0o600));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "EEXIST") throw pathError(path, code, error);
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o007) {
      options.logger.warn(
        `The SQLite database file ${path} can be accessed by every local user (mode ${mode.toString(8)}); it holds webhook data and, for a sender, subscription credentials. Consider \`chmod 600\`.`,
      );
    }
  }
}

/**
 * `mkdir -p` with mode 0700, one level at a time: node's recursive mkdirSync never returns for a path under /proc
 * (it retries ENOENT forever), and a level that exists but is a file must be named, not reported as EEXIST.
 */
function makeDirectories(directory: string): void {
  const missing: string[] = [];
  let current = directory;
  for (;;) {
    const stat = statOrNothing(current);
    if (stat) {
      if (!stat.isDirectory())
        throw new StoreConfigError(
          "invalid_path",
          `The SQLite database path cannot be created: ${current} is a file, not a directory. Give a path in a directory.`,
        );
      break;
    }
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== "EEXIST") throw pathError(level, code, error);
    }
  }
}

/** The path's stat, or undefined when nothing is there — also when a level above it is a file (ENOTDIR). */
function statOrNothing(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** An operating-system refusal to create the database's directory or file, naming the path and what to check. */
function pathError(path: string, code: unknown, cause: unknown): StoreUnavailableError {
  const hint =
    code === "EACCES" || code === "EPERM"
      ? "this user may not write there; choose a writable path or fix its permissions"
      : code === "EROFS"
        ? "the file system is read-only; choose a writable path"
        : code === "ENOSPC"
          ? "the disk is full"
          : "choose a path on a writable local file system";
  return new StoreUnavailableError(
    `Cannot create ${path} for the SQLite database (${String(code)}): ${hint}.`,
    {
      cause,
    },
  );
}

/**
 * A check that the file now at `path` is still the one there when the check was made (same device and inode): false
 * once it is deleted or replaced, and always false if there was no file to begin with. It runs before every store
 * operation, so it reads a number stat when the device and inode are exact as doubles (the usual case), cheaper than
 * a bigint stat. A device or inode beyond 2^53, which a double could round onto a neighbour's, is compared as bigints on every
 * call. `numbers` forces one way or the other (tests).
 */
export function fileIdentityCheck(path: string, numbers?: boolean): () => boolean {
  const opened = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (opened === undefined) return () => false;
  const { dev, ino } = opened;
  if (numbers ?? (dev <= BigInt(Number.MAX_SAFE_INTEGER) && ino <= BigInt(Number.MAX_SAFE_INTEGER))) {
    const devNumber = Number(dev);
    const inoNumber = Number(ino);
    return () => {
      const now = statSync(path, { throwIfNoEntry: false });
      return now !== undefined && now.ino === inoNumber && now.dev === devNumber;
    };
  }
  return () => {
    const now = statSync(path, { bigint: true, throwIfNoEntry: false });
    return now !== undefined && now.ino === ino && now.dev === dev;
  };
}
