// Starts Verdaccio with the config file given as the second argument on a free loopback port and prints
// `{"port":<n>}` once it listens. Run by release/src/registry.ts from the repository, with the cached install of
// this directory's package.json (where Verdaccio is loaded from) as the first argument.
//
// - Every answer says `Cache-Control: no-store`: npm's shared cache keeps the public packages between runs, but
//   never this registry's documents (a later run on the same port must not see an earlier run's versions).
// - Its parent holds its stdin open: when the parent ends however it ends (even SIGKILL), stdin closes, and this
//   process removes the directory named by the third argument (the rehearsal's temporary root) and exits.
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [install, config, orphanCleanup] = process.argv.slice(2);
const { runServer } = createRequire(join(install, "package.json"))("verdaccio");

/** Verdaccio's HTTP server, once it runs. */
let server;

// A closed stdout (the parent is gone) must not end the process before it has cleaned up.
process.stdout.on("error", () => {});
process.stdin.on("end", () => {
  // Verdaccio may still be writing into its storage there (a write already in node's thread pool): a removal that
  // meets a file created under it (ENOTEMPTY) tries again, instead of throwing and leaving the directory behind.
  server?.close();
  try {
    if (orphanCleanup)
      rmSync(orphanCleanup, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  } catch (error) {
    process.stderr.write(`could not remove ${orphanCleanup}: ${error.message}\n`);
    process.exit(1);
  }
  process.exit(0);
});
process.stdin.resume();

server = await runServer(config);
server.prependListener("request", (_request, response) => response.setHeader("cache-control", "no-store"));
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
