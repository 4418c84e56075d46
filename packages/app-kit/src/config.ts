import { type ParseArgsConfig, parseArgs } from "node:util";
import { z } from "zod";

/** A configuration problem; the message lists what to fix (never a token or secret). Exit code 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * A comma-separated list (`a, b,,c` → `["a", "b", "c"]`); not given at all, an empty list (so a required list
 * says what to set, through its own `.min(1, …)` message). Given but blank (`--secret=`, `SECRET=" "`) is an
 * error: a broken template must not silently turn a check off.
 *
 * @example
 * ```ts
 * z.object({ tokens: csvList }).parse({ tokens: "a,b" }); // { tokens: ["a", "b"] }
 * ```
 */
export const csvList = z
  .string()
  .optional()
  .transform((s, ctx) => {
    const items = (s ?? "")
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean);
    if (s !== undefined && items.length === 0) {
      ctx.addIssue({ code: "custom", message: "is set but empty: give a value, or leave it unset" });
      return z.NEVER;
    }
    return items;
  });

/**
 * A whole number given as text, within bounds; `what` names the flag and variable in messages.
 *
 * @example
 * ```ts
 * wholeNumber("--port / PORT", 0, 65535).default(4000);
 * ```
 */
export function wholeNumber(what: string, min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, `${what} must be a whole number`)
    .transform(Number)
    .pipe(
      z.number().int().min(min, `${what} must be at least ${min}`).max(max, `${what} must be at most ${max}`),
    );
}

/** One setting: its flag (value or boolean) and the environment variable that stands in for it. */
export interface Setting {
  flag: string;
  env?: string;
  /** Older names of `env`, still read when it is unset (so existing deployments keep working). */
  aliases?: readonly string[];
  boolean?: boolean;
  short?: string;
}

/**
 * Reads flags (which win) and environment variables, validates them with `schema`, then runs `checks` (each may
 * throw; its message is collected). `--help`/`-h` and `--version`/`-v` are answered as `"help"` / `"version"`.
 * Every problem is reported at once in a {@link ConfigError}.
 *
 * @example
 * ```ts
 * const config = parseConfig({
 *   name: "plant-store-receiver", argv, env: process.env,
 *   settings: { port: { flag: "port", env: "PORT" } },
 *   schema: z.object({ port: wholeNumber("--port / PORT", 0, 65535).default(4000) }),
 * });
 * ```
 */
export function parseConfig<S extends z.ZodType>(options: {
  name: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
  settings: Record<string, Setting>;
  schema: S;
  checks?: (config: z.output<S>) => [what: string, check: () => unknown][];
}): z.output<S> | "help" | "version" {
  const parseOptions: NonNullable<ParseArgsConfig["options"]> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean", short: "v" },
  };
  for (const setting of Object.values(options.settings)) {
    parseOptions[setting.flag] = {
      type: setting.boolean ? "boolean" : "string",
      ...(setting.short && { short: setting.short }),
    };
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: options.argv, strict: true, options: parseOptions }) as {
      values: Record<string, string | boolean | undefined>;
    });
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Run ${options.name} --help for the options.`);
  }
  if (values.help) return "help";
  if (values.version) return "version";
  const raw: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(options.settings)) {
    const fromEnv =
      setting.env === undefined
        ? undefined
        : (options.env[setting.env] ??
          setting.aliases?.map((name) => options.env[name]).find((value) => value !== undefined));
    raw[key] = setting.boolean
      ? values[setting.flag] === true || /^(1|true|yes)$/i.test(fromEnv ?? "")
      : ((values[setting.flag] as string | undefined) ?? fromEnv);
  }
  // Issues are named by their flag and variable (`--schedule / PLANT_STORE_SCHEDULE`), not by the schema's keys.
  const label = (path: PropertyKey[]) => {
    const [key, ...rest] = path;
    const setting = typeof key === "string" ? options.settings[key] : undefined;
    const name = setting
      ? `--${setting.flag}${setting.env ? ` / ${setting.env}` : ""}`
      : String(key ?? "config");
    return rest.length > 0
      ? `${name} (${rest.map((p) => (typeof p === "number" ? `item ${p + 1}` : String(p))).join(", ")})`
      : name;
  };
  const result = options.schema.safeParse(raw);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => `- ${label(issue.path)}: ${issue.message}`);
  // Every problem at once: the checks run even when some values failed the schema, on the values that passed
  // (a check that needs a failed value is skipped: that value's problem is already listed).
  const failed = new Set<PropertyKey>(
    result.success ? [] : result.error.issues.map((issue) => issue.path[0] ?? "config"),
  );
  const data = result.success ? result.data : partialParse(options.schema, raw, failed);
  let checks: [string, () => unknown][] = [];
  try {
    checks = data === null ? [] : (options.checks?.(data as z.output<S>) ?? []);
  } catch {
    // building the list needed a value that failed the schema
  }
  const failedLabels = new Set([...failed].map((key) => label([key as PropertyKey])));
  for (const [what, check] of checks) {
    if (failedLabels.has(what)) continue;
    try {
      check();
    } catch (error) {
      if (!result.success && error instanceof TypeError) continue; // it read a value that failed the schema
      problems.push(`- ${what}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  return (result as { data: z.output<S> }).data;
}

/** The fields of an object schema that parse on their own (the failed ones left out), or null for other schemas. */
function partialParse(schema: z.ZodType, raw: Record<string, unknown>, failed: Set<PropertyKey>) {
  if (!(schema instanceof z.ZodObject)) return null;
  const data: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (failed.has(key)) continue;
    const parsed = field.safeParse(raw[key]);
    if (parsed.success) data[key] = parsed.data;
  }
  return data;
}

/**
 * `--schedule` / `PLANT_STORE_SCHEDULE`: the retry schedule in milliseconds, comma-separated (the first entry is the
 * delay before the first attempt, normally 0); `null` when unset (the Standard Webhooks schedule). The sender's
 * deliveries and the receiver's forwards read it with this one definition.
 */
export const scheduleSetting = csvList
  .pipe(z.array(z.string().regex(/^\d+$/, "--schedule takes milliseconds, e.g. 0,1000,5000")).min(1))
  .transform((xs) => xs.map(Number))
  .nullable()
  .default(null);

/** The `--schedule` line of an app's help (the sender's and the receiver's). */
export const SCHEDULE_HELP =
  "  --schedule <ms,ms,…>     PLANT_STORE_SCHEDULE           retry schedule (default Standard Webhooks: 0,5s,5m,30m,2h,5h,10h,14h,20h,24h)";
