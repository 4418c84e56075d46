/** How binding a check is: MUST fails the run (exit 1), SHOULD is reported and does not. */
export type Level = "MUST" | "SHOULD";

/** A check's verdict: `skip` when the run lacked what it needs (a token, a key) or it was not selected. */
export type Verdict = "pass" | "fail" | "skip";

/** Where a check's rule comes from: a document and its section, with a link. */
export interface Source {
  readonly document: string;
  readonly section: string;
  readonly url: string;
}

/** What a check states about itself: enough for a report line and for its documentation page. */
export interface CheckInfo {
  /** Stable id, e.g. `signature.wrong`: `--only` / `--skip` take it, the docs page is named after it. */
  readonly id: string;
  readonly title: string;
  readonly level: Level;
  readonly source: Source;
  /** Why the rule exists, in a sentence or two. */
  readonly why: string;
  /** How to fix a failure, in one sentence. */
  readonly fix: string;
}

/** One HTTP exchange a check made or saw, shortened for a report. */
export interface Exchange {
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  readonly response?: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  /** Set when no answer came: a timeout, a refused or reset connection. */
  readonly error?: string;
  readonly ms: number;
}

/** A check's result: its info, the verdict, one line saying what happened, and the exchanges behind it. */
export interface CheckResult extends CheckInfo {
  readonly verdict: Verdict;
  readonly detail: string;
  /** What the check cannot see from outside, said once (e.g. what a receiver does with a duplicate). */
  readonly note?: string;
  readonly exchanges: readonly Exchange[];
  readonly ms: number;
  /** The check's documentation page. */
  readonly docs: string;
}

/** A whole run: what was checked and every result, in catalog order. */
export interface Report {
  readonly suite: "receiver" | "sender";
  readonly target: string;
  readonly results: readonly CheckResult[];
  readonly summary: ReportSummary;
}

export interface ReportSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** MUST checks that failed: a run passes when this is 0. */
  readonly mustFailed: number;
  readonly ms: number;
}
