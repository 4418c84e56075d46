import { writeFileSync } from "node:fs";
import {
  type CheckResult,
  checkReceiver,
  createSenderJudge,
  type Report,
  toJUnit,
  toText,
} from "@plant-store/conformance";
import { CliError } from "../../cli-error.js";
import { commandCatalog, type EventOptions } from "../../events.js";
import { bearerToken, httpUrl, MAX_TIMEOUT_MS, printJson, whole } from "../../output.js";

/** What both conformance commands print and where. */
interface ReportOptions {
  json?: boolean;
  junit?: string;
}

export interface ConformanceReceiverOptions extends ReportOptions, Pick<EventOptions, "spec"> {
  token?: string;
  secret?: string[];
  privateKey?: string[];
  publicKey?: string[];
  only?: string[];
  skip?: string[];
  include?: string[];
  timeout?: string;
  burst?: string;
  oversizedBytes?: string;
}

export interface ConformanceSenderOptions extends ReportOptions, Pick<EventOptions, "spec"> {
  port?: string;
  host?: string;
  token?: string;
  secret?: string[];
  publicKey?: string[];
  events?: string;
  wait?: string;
  retryAfter?: string;
}

/** Comma-separated or repeated ids, flattened. */
const ids = (list: string[] | undefined) =>
  list
    ?.flatMap((item) => item.split(","))
    .map((id) => id.trim())
    .filter(Boolean);

/** A one-line progress bar on stderr while checks run, only where a person watches. */
function progress(): ((result: CheckResult, done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  return (result, done, total) => {
    const width = 24;
    const filled = Math.round((done / total) * width);
    const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} ${result.id}`;
    // The last update clears the line, so the report starts on a clean one.
    process.stderr.write(done === total ? `\r${" ".repeat(80)}\r` : `\r${bar.padEnd(80)}`);
  };
}

/** Prints the report as asked (text, or JSON) and writes JUnit; exit 1 when a MUST check failed. */
function finish(report: Report, options: ReportOptions): number {
  if (options.junit) {
    try {
      writeFileSync(options.junit, toJUnit(report));
    } catch (error) {
      throw new CliError(
        `Cannot write --junit ${options.junit}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        2,
      );
    }
  }
  if (options.json) printJson(report);
  else process.stdout.write(toText(report));
  return report.summary.mustFailed > 0 ? 1 : 0;
}

/**
 * `plant-store conformance receiver <url>`: runs the receiver checks against a running receiver and prints the
 * report; resolves with the exit code (1 when a MUST check failed).
 *
 * @example
 * ```ts
 * await conformanceReceiver("http://127.0.0.1:4000/plant/webhook", { token: "psk_…", secret: ["whsec_…"] });
 * ```
 */
export async function conformanceReceiver(url: string, options: ConformanceReceiverOptions): Promise<number> {
  const target = httpUrl("<url>", url);
  const include = ids(options.include) ?? [];
  const unknown = include.filter((group) => group !== "load");
  if (unknown.length > 0) throw new CliError(`--include takes "load"; got ${unknown.join(", ")}.`, 2);
  const report = await checkReceiver({
    url: target.href,
    token: options.token === undefined ? undefined : bearerToken("--token", options.token),
    secrets: options.secret,
    privateKeys: options.privateKey,
    publicKeys: options.publicKey,
    catalog: await commandCatalog({ spec: options.spec }),
    only: ids(options.only),
    skip: ids(options.skip),
    include: include as "load"[],
    attemptTimeoutMs: options.timeout
      ? whole("--timeout", options.timeout, MAX_TIMEOUT_MS, " ms")
      : undefined,
    burst: options.burst ? whole("--burst", options.burst, 10_000) : undefined,
    oversizedBytes: options.oversizedBytes
      ? whole("--oversized-bytes", options.oversizedBytes, 1024 ** 3, " bytes")
      : undefined,
    onResult: options.json ? undefined : progress(),
  }).catch((error: Error & { code?: string }) => {
    throw error.code === "invalid_option" ? new CliError(error.message, 2) : error;
  });
  return finish(report, options);
}

/**
 * `plant-store conformance sender`: listens for a sender's deliveries, judges each, and prints the report once
 * `--events` events arrived and the planned retries came (or `--wait` seconds passed, or on Ctrl-C).
 *
 * @example
 * ```ts
 * await conformanceSender({ port: "4000", secret: ["whsec_…"], token: "psk_…", events: "3" });
 * ```
 */
export async function conformanceSender(options: ConformanceSenderOptions): Promise<number> {
  if (!options.secret?.length && !options.publicKey?.length) {
    throw new CliError(
      "Give the endpoint's --secret (or the sender's --public-key): the judge verifies every signature.",
      2,
    );
  }
  const judge = createSenderJudge({
    secrets: options.secret,
    publicKeys: options.publicKey,
    token: options.token,
    catalog: await commandCatalog({ spec: options.spec }),
    retryAfterSeconds: options.retryAfter
      ? whole("--retry-after", options.retryAfter, 3600, " s")
      : undefined,
  });
  const events = whole("--events", options.events ?? "3", 10_000);
  const waitMs = whole("--wait", options.wait ?? "600", 86_400, " s") * 1000;
  const server = await judge.listen({
    port: whole("--port", options.port ?? "4000", 65_535, "", 0),
    host: options.host ?? "127.0.0.1",
  });
  process.stderr.write(
    `Judging deliveries at ${server.url}/plant/webhook (and 410 at ${server.url}/gone).\n` +
      `Subscribe both, then publish ${events} events with distinct payloads; the report comes once they arrived.\n`,
  );
  // Ctrl-C ends the wait and reports what arrived.
  const interrupted = new AbortController();
  const interrupt = () => interrupted.abort();
  process.once("SIGINT", interrupt);
  await judge.waitFor(events, waitMs, interrupted.signal);
  process.off("SIGINT", interrupt);
  await server.close();
  return finish(judge.report(server.url), options);
}
