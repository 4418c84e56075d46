// Starts Verdaccio with the config file given as the first argument on a free loopback port and prints
// `{"port":<n>}` once it listens. Run by release/src/registry.ts from the cached install of this directory.
//
// - Every answer says `Cache-Control: no-store`: npm's shared cache keeps the public packages between runs, but
//   never this registry's documents (a later run on the same port must not see an earlier run's versions).
// - Its parent holds its stdin open: when the parent ends however it ends (even SIGKILL), stdin closes, and this
//   process removes the directory named by the second argument (the rehearsal's temporary root) and exits.
import { rmSync } from "node:fs";
import { runServer } from "verdaccio";

const [config, orphanCleanup] = process.argv.slice(2);

// A closed stdout (the parent is gone) must not end the process before it has cleaned up.
process.stdout.on("error", () => {});
process.stdin.on("end", () => {
  if (orphanCleanup) rmSync(orphanCleanup, { recursive: true, force: true });
  process.exit(0);
});
process.stdin.resume();

const server = await runServer(config);
server.prependListener("request", (_request, response) => response.setHeader("cache-control", "no-store"));
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
