import { Command, CommanderError } from "commander";
import { CliError } from "./cli-error.js";
import { refuseRepeats } from "./repeatable.js";

/** A command's module: it declares the command (options, arguments, help) on the program. */
interface CommandModule {
  register(program: Command): void;
}

/** Every command, in the order the help lists them; each module is loaded only when it is needed. */
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  send: () => import("./commands/send/index.js"),
  events: () => import("./commands/events/index.js"),
  listen: () => import("./commands/listen/index.js"),
  replay: () => import("./commands/replay/index.js"),
  validate: () => import("./commands/validate/index.js"),
  example: () => import("./commands/example/index.js"),
  spec: () => import("./commands/spec/index.js"),
  token: () => import("./commands/token/index.js"),
  secret: () => import("./commands/secret/index.js"),
  keypair: () => import("./commands/keypair/index.js"),
  sign: () => import("./commands/sign/index.js"),
  verify: () => import("./commands/verify/index.js"),
  applications: () => import("./commands/applications/index.js"),
  "portal-link": () => import("./commands/portal-link/index.js"),
  subscriptions: () => import("./commands/subscriptions/index.js"),
  publish: () => import("./commands/publish/index.js"),
  deliveries: () => import("./commands/deliveries/index.js"),
  recover: () => import("./commands/recover/index.js"),
  destinations: () => import("./commands/destinations/index.js"),
  conformance: () => import("./commands/conformance/index.js"),
};

/**
 * Parses the arguments and runs one command; resolves with the exit code (0 ok, 1 the checked thing failed,
 * 2 usage error). Only the named command's module is loaded (every one for the overall help, or a name that is no
 * command), and its implementation only when it runs.
 *
 * @example
 * ```ts
 * process.exitCode = await run(["send", "http://127.0.0.1:4000/plant/webhook", "--token", "psk_…"]);
 * ```
 */
export async function run(argv: string[]): Promise<number> {
  const program = new Command("plant-store")
    .description("The developer's tool for the Plant Store New Plant webhook (WEBHOOK /plant/webhook).")
    .version(await version(), "-V, --version")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  try {
    for (const load of modulesFor(argv)) (await load()).register(program);
    refuseRepeats(program);
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    return exitCodeOf(error);
  }
}

/** The modules `argv` needs: the command it names (also after `help`), else every one. */
function modulesFor(argv: string[]): (() => Promise<CommandModule>)[] {
  const operands = argv.filter((arg) => !arg.startsWith("-"));
  const name = operands[0] === "help" ? operands[1] : operands[0];
  const load = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  return load ? [load] : Object.values(COMMANDS);
}

/** The exit code for what ended the run; an error's message goes to stderr (commander printed its own). */
function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) {
    const done =
      error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.exitCode === 0;
    return done ? 0 : 2;
  }
  if (error instanceof CliError) {
    process.stderr.write(`plant-store: ${error.message}\n`);
    return error.exitCode;
  }
  process.stderr.write(`plant-store: ${(error as Error).message}\n`);
  return 1;
}

async function version(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return (
    JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
}
