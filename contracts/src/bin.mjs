#!/usr/bin/env node
// @ts-check
// contract-gate check [--root DIR] [--verbose]   compare the contracts with their baselines (npm test runs it)
// contract-gate version [--root DIR]             after `changeset version`: info.version + baselines
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const usage = "usage: contract-gate <check|version> [--root DIR] [--verbose]";

try {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { root: { type: "string" }, verbose: { type: "boolean", default: false } },
  });
  const root = resolve(values.root ?? join(dirname(fileURLToPath(import.meta.url)), "..", ".."));
  const [command] = positionals;
  if (command === "check") {
    const { checkContracts } = await import("./check.mjs");
    const { formatReport } = await import("./report.mjs");
    const result = await checkContracts(root);
    (result.ok ? console.log : console.error)(formatReport(result, { verbose: values.verbose }));
    process.exitCode = result.ok ? 0 : 1;
  } else if (command === "version") {
    const { recordRelease } = await import("./record-release.mjs");
    for (const line of await recordRelease(root)) console.log(`contract gate: ${line}`);
  } else {
    console.error(command ? `contract-gate: unknown command ${JSON.stringify(command)}. ${usage}` : usage);
    process.exitCode = 2;
  }
} catch (error) {
  const err = /** @type {Error & { code?: string }} */ (error);
  // Our own errors and bad arguments carry a message meant for the user; anything else keeps its stack.
  const known = err.code?.startsWith("contract_") || err.code?.startsWith("ERR_PARSE_ARGS");
  console.error(`contract-gate: ${known ? err.message : (err.stack ?? err.message)}`);
  process.exitCode = err.code?.startsWith("ERR_PARSE_ARGS") ? 2 : 1;
}
