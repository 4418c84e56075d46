import { paint, printJson } from "../output.js";

/** How a list's rows read for people: subscriptions or deliveries. */
export type RowKind = "subscriptions" | "deliveries" | "applications" | "destinations" | "forwards";

/**
 * Prints an admin answer: the JSON itself with `--json`, else a line per row of a list (and how to get the next
 * page) or a line per field, with a reminder when a generated credential is shown.
 *
 * @example
 * ```ts
 * printAnswer(await admin.call("listSubscriptions", {}), { json: false }, "subscriptions");
 * ```
 */
export function printAnswer(
  result: Record<string, unknown>,
  options: { json?: boolean },
  rows?: RowKind,
): void {
  if (options.json) {
    printJson(result);
    return;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (Array.isArray(result.data)) {
    for (const row of result.data as Record<string, unknown>[]) out(rowLine(row, rows));
    if ((result.data as unknown[]).length === 0) out(paint("dim", "(none)"));
    if (typeof result.nextCursor === "string") {
      out(paint("dim", `(more: add --cursor ${result.nextCursor} for the next page)`));
    }
    return;
  }
  for (const [key, value] of Object.entries(result)) {
    out(`${key}: ${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`);
  }
  if (result.secret || result.token) out(paint("yellow", "Shown once: store the token/secret now."));
}

function rowLine(row: Record<string, unknown>, rows: RowKind | undefined): string {
  if (rows === "applications") return `${row.id}  ${row.uid}  ${row.name}`;
  if (rows === "destinations") {
    const state = String(row.state);
    const painted = paint(
      state === "active" ? "green" : state === "paused" ? "yellow" : "red",
      state.padEnd(8),
    );
    return `${row.id}  ${painted}  depth ${row.depth}  lag ${Math.round(Number(row.lagSeconds))}s  failed ${row.failed}  ${row.name}`;
  }
  if (rows === "forwards") {
    return `${row.id}  ${String(row.state).padEnd(9)} event #${row.eventSeq}  attempts ${row.attempts}  last ${row.lastStatus ?? row.lastError ?? "-"}`;
  }
  return rows === "subscriptions"
    ? `${row.id}  ${row.enabled ? paint("green", "enabled ") : paint("red", "disabled")}  ${row.url}`
    : `${row.id}  ${String(row.state).padEnd(9)} ${row.messageId}  attempts ${row.attempts}  last ${row.lastStatus ?? row.lastError ?? "-"}`;
}
