import type { Registry } from "../registry.js";

/** What a rehearsal covers. */
export interface RehearsalOptions {
  /**
   * One release and one consumer of every package: what `npm test` runs. It publishes the working tree's build
   * (turbo built it before the release tests), packed by pnpm on the copy and published by npm in parallel; its
   * consumer takes npm's cache first and better-sqlite3's native binary from the workspace's build of the same
   * version. The full rehearsal builds on the copy, publishes with `pnpm release` (changeset publish), compiles
   * better-sqlite3 in its consumers, and adds the release history, the prerelease channel and one consumer per
   * package.
   */
  quick?: boolean;
  /** Where progress lines go (default: stdout). */
  log?: (line: string) => void;
  /** The repository to rehearse (default: this one); it must be a git checkout. */
  root?: string;
  /**
   * A registry the caller runs (e.g. their own Verdaccio), as a URL: the rehearsal publishes there, with the login
   * npm has for it (`npm adduser --registry <url>`), instead of starting one, and never stops it. Default: a
   * throwaway Verdaccio of the rehearsal's own.
   */
  registry?: string;
}

/** The rehearsal's own registry, kept serving after a passing run (`--keep`). */
export interface KeptRegistry {
  url: string;
  /** Verdaccio's storage directory: what the rehearsal published, as files. */
  storage: string;
  pid: number;
}

/** What a rehearsal published, for the caller (and the tests) to check. */
export interface RehearsalResult {
  /** Package name → every version published, in order. */
  published: Record<string, string[]>;
  /** Package name → dist-tags as the registry reported them at the end. */
  distTags: Record<string, Record<string, string>>;
  seconds: number;
  /**
   * The registry's URL and the temporary directories it used: all gone once `rehearse` returns (a caller's
   * registry keeps serving).
   */
  registry: string;
  temporary: string[];
}

/** The registry a rehearsal publishes to: its own Verdaccio, or the caller's (never stopped, no storage of ours). */
export type Target = Pick<Registry, "url" | "npmrc" | "stop"> & Partial<Pick<Registry, "pid" | "storage">>;
