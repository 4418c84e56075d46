// `pnpm release:rehearse [--quick] [--registry <url> | --keep]`: the release rehearsal from the command line.
// Exits 2 on bad arguments, 1 on a failed rehearsal; on Ctrl-C or SIGTERM stops the registry it started and the
// apps and removes the temporary directories first.
import { parseArgs } from "node:util";
import { checkRegistryUrl, upstreamRegistry } from "./registry.js";
import { Rehearsal, RehearsalError } from "./rehearse.js";

const USAGE = `usage: pnpm release:rehearse [--quick] [--registry <url> | --keep]
  --quick           one release and one consumer (what npm test runs); without it: the full rehearsal
  --registry <url>  publish to a registry you run (e.g. your own Verdaccio) instead of starting one; npm must
                    have a login for it (npm adduser --registry <url>); the rehearsal never stops it
  --keep            after a passing run, keep the rehearsal's own Verdaccio serving what it published: prints its
                    URL and storage directory, then stops it and removes everything on Ctrl-C or SIGTERM
`;

function usage(problem?: string): never {
  process.stderr.write(`${problem ? `release rehearsal: ${problem}\n` : ""}${USAGE}`);
  process.exit(problem ? 2 : 0);
}

let values: { quick?: boolean; keep?: boolean; registry?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      quick: { type: "boolean" },
      keep: { type: "boolean" },
      registry: { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  usage((error as Error).message);
}
if (values.help) usage();
if (values.keep && values.registry !== undefined) {
  usage(
    "--keep keeps the rehearsal's own registry; a registry given with --registry is yours and keeps serving",
  );
}
let registry: string | undefined;
if (values.registry !== undefined) {
  const checked = checkRegistryUrl(values.registry, await upstreamRegistry());
  if ("problem" in checked) usage(`--registry: ${checked.problem}`);
  registry = checked.url;
}

const rehearsal = new Rehearsal({ quick: values.quick ?? false, ...(registry ? { registry } : {}) });
let kept = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(
      `\nrelease rehearsal: ${signal}, stopping ${registry ? "the apps (your registry keeps serving)" : "the registry and the apps"} and removing temporary files\n`,
    );
    // Ending a kept registry is how a passing --keep run ends: success.
    void rehearsal.cleanup().finally(() => process.exit(kept ? 0 : 130));
  });
}
try {
  await rehearsal.run();
  if (values.keep) {
    const { url, storage, pid } = await rehearsal.keepRegistry();
    kept = true;
    process.stdout.write(
      `release rehearsal: keeping the registry at ${url} (storage ${storage}, Verdaccio pid ${pid}); Ctrl-C or SIGTERM stops it and removes it\n`,
    );
    // In the foreground until a signal: the handlers above stop the registry and exit.
    setInterval(() => {}, 2 ** 31 - 1);
  } else {
    await rehearsal.cleanup();
  }
} catch (error) {
  await rehearsal.cleanup();
  process.stderr.write(`\n${error instanceof RehearsalError ? error.message : (error as Error).stack}\n`);
  process.exit(1);
}
