// Starts Verdaccio with the config file given as the first argument on a free loopback port and prints
// `{"port":<n>}` once it listens. Run by release/src/registry.ts from the cached install of this directory.
import { runServer } from "verdaccio";

const server = await runServer(process.argv[2]);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
