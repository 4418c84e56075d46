// Child of crash.test.ts: writes inbox events through group commit as fast as it can and prints
// each webhook id only after record() resolved, i.e. after the commit holding it returned. The
// parent kill -9s it at a random moment. Usage: crash-child.mjs <db file> <id prefix>
const [file, prefix] = process.argv.slice(2);
const { openStore } = await import("../../src/index.ts");
const store = await openStore(file);
process.stdout.write("ready\n");

const inFlight = new Set();
let n = 0;
for (;;) {
  // Many writes in flight, so kills land before, during and after commits of full batches.
  while (inFlight.size < 256) {
    const id = `${prefix}-${n++}`;
    const write = store.inbox
      .record({
        webhookId: id,
        body: `{"id":${n},"name":"crash"}`,
        headers: { "content-type": "application/json" },
      })
      .then(
        () => {
          process.stdout.write(`${id}\n`);
          inFlight.delete(write);
        },
        (error) => {
          process.stderr.write(`record failed: ${error.stack}\n`);
          process.exit(1);
        },
      );
    inFlight.add(write);
  }
  await Promise.race(inFlight);
}
