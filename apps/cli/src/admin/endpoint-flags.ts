import { CliError } from "../cli-error.js";

/** What reads a text flag (both apps' admin sessions): given but empty is a usage error. */
interface FlagReader {
  text(key: string): string | undefined;
}

/**
 * A number flag (`--rate-limit`, `--max-in-flight`, …): a number, `none` (null: no limit / the default), or left out.
 *
 * @example
 * ```ts
 * numberOrNone(admin, "rate-limit", "rateLimit"); // 5 for --rate-limit 5, null for --rate-limit none
 * ```
 */
export function numberOrNone(flags: FlagReader, flag: string, key: string): number | null | undefined {
  const text = flags.text(key);
  if (text === undefined) return undefined;
  if (text === "none") return null;
  if (!/^\d+(\.\d+)?$/.test(text)) throw new CliError(`--${flag} must be a number, or none.`, 2);
  return Number(text);
}

/**
 * `--header name:value` or `name=value` (repeatable) as an object, names lower-cased; a name given twice is refused.
 * A header name holds neither `:` nor `=` (RFC 9110 token), so the first of them ends it and the value may hold
 * either.
 *
 * @example
 * ```ts
 * headerObject(["x-api-key:k1", "X-Tenant=a=b"]); // { "x-api-key": "k1", "x-tenant": "a=b" }
 * ```
 */
export function headerObject(lines: readonly string[]): Record<string, string> {
  return pairs(lines, "--header", "name:value or name=value, e.g. x-api-key:k1", true);
}

/**
 * `--metadata key=value` (repeatable) as an object; a key given twice is refused.
 *
 * @example
 * ```ts
 * metadataObject(["team=growth"]); // { team: "growth" }
 * ```
 */
export function metadataObject(lines: readonly string[]): Record<string, string> {
  return pairs(lines, "--metadata", "key=value, e.g. team=growth", false);
}

function pairs(
  lines: readonly string[],
  flag: string,
  shape: string,
  header: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const at = header ? line.search(/[:=]/) : line.indexOf("=");
    if (at <= 0)
      throw new CliError(`${flag} must be ${shape} (got ${JSON.stringify(line.slice(0, 40))}).`, 2);
    const raw = line.slice(0, at).trim();
    const name = header ? raw.toLowerCase() : raw;
    if (Object.hasOwn(out, name)) throw new CliError(`${flag} ${name} is given twice; give it once.`, 2);
    out[name] = line.slice(at + 1).trim();
  }
  return out;
}
