/** The `code` a fetch implementation's SSRF guard throws when a target resolves to a forbidden address. */
export const BLOCKED_ADDRESS_CODE = "ERR_PLANT_STORE_BLOCKED_ADDRESS";

const MAX_CAUSES = 5;

/**
 * Whether `error`, or one of its causes, carries {@link BLOCKED_ADDRESS_CODE}: fetch implementations
 * wrap what their connector threw (undici: `TypeError("fetch failed", { cause })`).
 *
 * @example
 * ```ts
 * import { BLOCKED_ADDRESS_CODE, isBlockedAddressError } from "./describe-error.js";
 * const guard = Object.assign(new Error("10.0.0.1 is private"), { code: BLOCKED_ADDRESS_CODE });
 * isBlockedAddressError(new TypeError("fetch failed", { cause: guard })); // true
 * ```
 */
export function isBlockedAddressError(error: unknown): boolean {
  return causes(error).some((link) => (link as { code?: unknown }).code === BLOCKED_ADDRESS_CODE);
}

/**
 * One line describing an error and its causes ("fetch failed: connect ECONNREFUSED 127.0.0.1:8080"),
 * with every occurrence of the given sensitive strings replaced by `[redacted]`.
 *
 * @example
 * ```ts
 * import { describeError } from "./describe-error.js";
 * describeError(new Error("bad token psk_abc"), ["psk_abc"]); // "bad token [redacted]"
 * ```
 */
export function describeError(error: unknown, sensitive: readonly string[] = []): string {
  const parts: string[] = [];
  for (const link of causes(error)) {
    const message = link instanceof Error ? link.message : String(link);
    if (message !== "" && !parts.some((part) => part.includes(message))) parts.push(message);
  }
  return redact(parts.join(": ") || "Unknown error.", sensitive);
}

/**
 * Replaces every occurrence of each non-empty sensitive string in `text` with `[redacted]`.
 *
 * @example
 * ```ts
 * import { redact } from "./describe-error.js";
 * redact("Bearer psk_abc rejected", ["psk_abc"]); // "Bearer [redacted] rejected"
 * ```
 */
export function redact(text: string, sensitive: readonly string[]): string {
  // Nearly always nothing to replace (a response body, an error message): checked before anything is copied.
  if (!sensitive.some((value) => value !== "" && text.includes(value))) return text;
  let out = text;
  // Longest first, so a secret containing another is removed whole.
  for (const value of [...sensitive].sort((a, b) => b.length - a.length)) {
    if (value !== "") out = out.split(value).join("[redacted]");
  }
  return out;
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let link = error;
  while (link != null && chain.length < MAX_CAUSES && !chain.includes(link)) {
    chain.push(link);
    link = typeof link === "object" ? (link as { cause?: unknown }).cause : undefined;
  }
  return chain;
}
