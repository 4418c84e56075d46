// `pnpm release:rehearse [--quick]`: the release rehearsal from the command line. Exits non-zero on failure,
// and on Ctrl-C or SIGTERM stops the registry and the apps and removes the temporary directories first.
import { Rehearsal, RehearsalError } from "./rehearse.js";

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== "--quick");
if (unknown.length > 0 || args.includes("--help")) {
  process.stderr.write(
    `usage: pnpm release:rehearse [--quick]\n  --quick  one release and one consumer (what npm test runs); without it: the full rehearsal\n`,
  );
  process.exit(unknown.length > 0 ? 2 : 0);
}

const rehearsal = new Rehearsal({ quick: args.includes("--quick") });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(
      `\nrelease rehearsal: ${signal}, stopping the registry and removing temporary files\n`,
    );
    void rehearsal.cleanup().finally(() => process.exit(130));
  });
}
try {
  await rehearsal.run();
  await rehearsal.cleanup();
} catch (error) {
  await rehearsal.cleanup();
  process.stderr.write(`\n${error instanceof RehearsalError ? error.message : (error as Error).stack}\n`);
  process.exit(1);
}
