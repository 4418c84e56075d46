// Run by the consumer test with each Node version, inside a scratch project that installed the packed
// tarballs: imports every public entry of every @plant-store package and uses the libraries once.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const names = JSON.parse(process.argv[2]);
const imported = [];
for (const name of names) {
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const specifier = subpath === "." ? name : `${name}${subpath.slice(1)}`;
    const file = typeof target === "string" ? target : target.default;
    if (subpath.includes("*")) continue; // a directory of files (examples), checked below by name
    if (file.endsWith(".json")) {
      await import(specifier, { with: { type: "json" } });
    } else if (file.endsWith(".js")) {
      const module = await import(specifier);
      assert.ok(Object.keys(module).length > 0, `${specifier} exports nothing`);
    } else {
      assert.ok(existsSync(join(dirname(manifestPath), file)), `${specifier} → ${file} is missing`);
    }
    imported.push(specifier);
  }
}

// Only the packages named are checked (the release rehearsal installs each package alone, too).
if (!names.includes("@plant-store/spec") || !names.includes("@plant-store/core")) {
  console.log(JSON.stringify({ node: process.version, imported }));
  process.exit(0);
}

// The libraries work as installed (dist, the `node` crypto condition, the native SQLite binding).
const spec = await import("@plant-store/spec");
const core = await import("@plant-store/core");
assert.equal(spec.WEBHOOK_PATH, "/plant/webhook");
const example = readFileSync(require.resolve("@plant-store/spec/examples/valid/basic.json"), "utf8");
const parsed = core.parseNewPlant(example);
assert.ok(parsed.ok, "the spec's example parses");
const secret = core.createSecret();
const timestamp = Math.floor(Date.now() / 1000);
const signature = await core.sign({ secret, id: "msg_consumer", timestamp, body: example });
const verdict = await core.verify({
  secrets: [secret],
  id: "msg_consumer",
  timestamp: String(timestamp),
  signature,
  body: example,
});
assert.ok(verdict.ok, "sign → verify round trip");
const lossless = core.parseNewPlant('{"id":9007199254740993,"name":"x"}', { mode: "lossless" });
assert.ok(lossless.ok && lossless.value.id === 9007199254740993n, "int64 ids survive");
if (names.includes("@plant-store/store")) {
  const { openStore } = await import("@plant-store/store");
  const store = await openStore(":memory:");
  const first = await store.inbox.record({
    webhookId: "msg_consumer",
    body: new TextEncoder().encode(example),
    headers: {},
  });
  const again = await store.inbox.record({
    webhookId: "msg_consumer",
    body: new TextEncoder().encode(example),
    headers: {},
  });
  assert.equal(first.duplicate, false);
  assert.equal(again.duplicate, true);
  await store.close();
}
console.log(JSON.stringify({ node: process.version, imported }));
