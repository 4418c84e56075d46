import { type Command, Option } from "commander";

/**
 * `--event` and `--spec`: which webhook of which document. Every command that handles a payload takes both.
 *
 * @example
 * ```ts
 * eventOptions(program.command("example"));
 * ```
 */
export function eventOptions(command: Command): Command {
  return command
    .option(
      "--event <name>",
      "the webhook: event type, path or name (default New Plant; see plant-store events)",
    )
    .addOption(
      new Option("--spec <file>", "an OpenAPI document whose webhooks to use (default: built in)").env(
        "PLANT_STORE_SPEC",
      ),
    );
}

/**
 * The event options and where the payload comes from: `--data`, `--file` or the fields `--id/--name/--tag`.
 *
 * @example
 * ```ts
 * payloadOptions(program.command("sign").option("--json", "machine-readable output"));
 * ```
 */
export function payloadOptions(command: Command): Command {
  return eventOptions(command)
    .option("--data <json>", "the payload as JSON text (sent byte for byte)")
    .option("--file <path>", "read the payload from a file, or - for stdin")
    .option("--id <int>", "build the payload from fields (any of them; the rest from the spec's example): id")
    .option("--name <text>", "name")
    .option("--tag <text>", "tag");
}

/**
 * Adds an "Examples:" section (or "Example:" for one) after a command's help.
 *
 * @example
 * ```ts
 * withExamples(program.command("spec"), "plant-store spec > openapi.yaml");
 * ```
 */
export function withExamples(command: Command, ...examples: string[]): Command {
  return command.addHelpText(
    "after",
    `\nExample${examples.length > 1 ? "s" : ""}:\n${examples.map((line) => `  ${line}`).join("\n")}`,
  );
}

/** The help line of `sign` and `verify`, which never fall back to the spec's example. */
export const BODY_REQUIRED = "\nThe body is required: --data, --file, --id/--name/--tag or --example.";
