import type { ChildProcess } from "node:child_process";
import { ROOT } from "../workspace.js";
import type { RehearsalOptions, Target } from "./types.js";

/** One rehearsal's state, passed to every stage; the stages are its only writers. */
export interface RehearsalContext {
  readonly log: (line: string) => void;
  readonly quick: boolean;
  /** The repository rehearsed. */
  readonly root: string;
  /** The caller's registry URL (`--registry`), when the rehearsal publishes there instead of to its own. */
  readonly callersRegistry: string | undefined;
  readonly started: number;
  /** Aborted by the cleanup: ends every command and start still under way. */
  readonly abort: AbortController;
  /** Every temporary directory this rehearsal created (removed by the cleanup). */
  readonly temporary: string[];
  /** What the cleanup undoes, last first. */
  readonly cleanups: (() => Promise<void> | void)[];
  /** The apps the consumer checks started: killed by the cleanup if still running. */
  readonly children: Set<ChildProcess>;
  /** Package name → every version published, in order. */
  readonly published: Record<string, string[]>;
  /** Packages the contract gate made release as breaking because a dependency of theirs did. */
  readonly gateDependents: Set<string>;
  /** The one temporary directory everything else lives in (Verdaccio removes it if orphaned); "" before the run. */
  base: string;
  /** The repository's copy that is versioned and published; "" until it is made. */
  copy: string;
  /** The registry, once it answers. */
  registry: Target | undefined;
  /** The registry's start, from the moment it began: the cleanup stops it however far it got. */
  registryStart: Promise<Target> | undefined;
  /** Steps running now, and steps started so far: a step that ran beside another names itself when it ends. */
  running: number;
  steps: number;
}

/**
 * A rehearsal's state before it runs.
 *
 * @example
 * ```ts
 * const ctx = createContext({ quick: true });
 * ```
 */
export function createContext(options: RehearsalOptions): RehearsalContext {
  return {
    log: options.log ?? ((line) => process.stdout.write(`${line}\n`)),
    quick: options.quick ?? false,
    root: options.root ?? ROOT,
    callersRegistry: options.registry,
    started: Date.now(),
    abort: new AbortController(),
    temporary: [],
    cleanups: [],
    children: new Set(),
    published: {},
    gateDependents: new Set(),
    base: "",
    copy: "",
    registry: undefined,
    registryStart: undefined,
    running: 0,
    steps: 0,
  };
}

/** The registry the stages after the first publish use; it has started by then. */
export function registryOf(ctx: RehearsalContext): Target {
  if (!ctx.registry) throw new Error("the registry has not started yet");
  return ctx.registry;
}
