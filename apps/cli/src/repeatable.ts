import { type Command, Option } from "commander";
import { CliError } from "./cli-error.js";

/** Appends each value given, so a repeatable flag's option value is every value in order. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * A flag that may be given several times; its value is the list of every value given. Being made here is what
 * makes a flag repeatable: the help says so, its values accumulate, and {@link refuseRepeats} lets it repeat.
 *
 * @example
 * ```ts
 * cmd.addOption(repeatable("--secret <whsec>", "signing secret, v1")); // help: "signing secret, v1 (repeatable)"
 * ```
 */
export function repeatable(flags: string, description: string, note = "repeatable"): Option {
  return new Option(flags, `${description} (${note})`).argParser(collect);
}

/** Whether `option` was made by {@link repeatable}. */
function isRepeatable(option: Option): boolean {
  return option.parseArg === (collect as Option["parseArg"]);
}

/**
 * Refuses (exit 2) any other flag of `command` or its subcommands given twice on the command line: commander would
 * keep the last value silently, so `send --token a --token b` would send with b alone.
 *
 * @example
 * ```ts
 * refuseRepeats(program);
 * await program.parseAsync(["send", url, "--token", "a", "--token", "b"], { from: "user" }); // CliError, exit 2
 * ```
 */
export function refuseRepeats(command: Command): void {
  for (const option of command.options) {
    if (isRepeatable(option)) continue;
    let given = 0;
    command.on(`option:${option.name()}`, () => {
      given += 1;
      if (given > 1)
        throw new CliError(`${option.long ?? option.short} is given more than once; give it once.`, 2);
    });
  }
  for (const subcommand of command.commands) refuseRepeats(subcommand);
}
