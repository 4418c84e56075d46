#!/usr/bin/env node
// Start-up matters: `--version` answers from package.json alone; every command module loads only when it runs.
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  process.stdout.write(`${version}\n`);
} else {
  const { exitOnClosedPipes } = await import("./closed-pipes.js");
  exitOnClosedPipes();
  const { run } = await import("./cli.js");
  process.exitCode = await run(argv);
}
