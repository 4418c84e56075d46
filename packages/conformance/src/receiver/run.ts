import { PlantStoreError } from "@plant-store/core";
import { deselected, unknownIds } from "../selection.js";
import { docsUrl } from "../sources.js";
import { summarize } from "../summary.js";
import type { CheckResult, Report } from "../types.js";
import { receiverChecks } from "./catalog.js";
import type { Need, ReceiverCheck } from "./check.js";
import { createContext, type ReceiverContext, type ReceiverOptions } from "./context.js";

const NEEDS: Record<Need, { has: (context: ReceiverContext) => boolean; say: string }> = {
  token: { has: (c) => Boolean(c.options.token), say: "needs --token" },
  signing: {
    has: (c) => c.options.secrets.length + c.options.privateKeys.length > 0,
    say: "needs --secret or --private-key",
  },
  secret: { has: (c) => c.options.secrets.length > 0, say: "needs --secret" },
  privateKey: { has: (c) => c.options.privateKeys.length > 0, say: "needs --private-key" },
  verifyingKey: {
    has: (c) => c.options.publicKeys.length + c.options.privateKeys.length > 0,
    say: "needs --public-key or --private-key",
  },
};

function skipped(check: ReceiverCheck, detail: string): CheckResult {
  const { run: _run, needs: _needs, group: _group, ...info } = check;
  return { ...info, verdict: "skip", detail, exchanges: [], ms: 0, docs: docsUrl(check.id) };
}

/** A message with the run's token, secrets and keys masked: a report never carries one. */
function withoutSecrets(message: string, context: ReceiverContext): string {
  const { token, secrets, privateKeys } = context.options;
  let out = message;
  for (const secret of [token, ...secrets, ...privateKeys]) if (secret) out = out.replaceAll(secret, "…");
  return out;
}

async function runOne(check: ReceiverCheck, context: ReceiverContext): Promise<CheckResult> {
  const { options } = context;
  const reason = deselected(check, options.only, options.skip, options.include);
  if (reason) return skipped(check, reason);
  const missing = (check.needs ?? []).find((need) => !NEEDS[need].has(context));
  if (missing) return skipped(check, NEEDS[missing].say);
  const started = performance.now();
  const { run, needs: _needs, group: _group, ...info } = check;
  const finding = await run(context).catch((error: unknown) => ({
    pass: false,
    detail: `the check could not run: ${withoutSecrets((error as Error)?.message ?? String(error), context)}`,
    exchanges: [],
  }));
  return {
    ...info,
    verdict: finding.pass ? "pass" : "fail",
    detail: finding.detail,
    exchanges: finding.exchanges,
    ms: Math.round(performance.now() - started),
    docs: docsUrl(check.id),
  };
}

/**
 * Runs the receiver checks against a receiver (over HTTP, or a Fetch handler in-process) and returns the report;
 * never throws for what the receiver does. A run passes when `report.summary.mustFailed` is 0.
 *
 * @example
 * ```ts
 * const report = await checkReceiver({ url: "http://127.0.0.1:4000/plant/webhook", token: "psk_…", secrets: ["whsec_…"] });
 * if (report.summary.mustFailed > 0) console.log(report.results.filter((r) => r.verdict === "fail"));
 * ```
 */
export async function checkReceiver(options: ReceiverOptions): Promise<Report> {
  const ids = receiverChecks.map((check) => check.id);
  const unknown = [...unknownIds(options.only, ids), ...unknownIds(options.skip, ids)];
  if (unknown.length > 0) {
    throw new PlantStoreError(
      "invalid_option",
      `Unknown check id ${unknown.map((id) => `"${id}"`).join(", ")}; the ids are: ${ids.join(", ")}.`,
    );
  }
  const context = createContext(options);
  const started = performance.now();
  const results: CheckResult[] = [];
  for (const check of receiverChecks) {
    const result = await runOne(check, context);
    results.push(result);
    options.onResult?.(result, results.length, receiverChecks.length);
  }
  return {
    suite: "receiver",
    target: options.url,
    results,
    summary: summarize(results, performance.now() - started),
  };
}
