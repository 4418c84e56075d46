import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { fillOnce } from "../src/cache.js";
import { installRegistryTool, pingRegistry, startRegistry } from "../src/registry.js";

// Two rehearsals (two CI jobs on one machine) share the release cache: what one makes, the other may be making
// at the same moment.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function emptyCache(): string {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-release-cache-"));
  dirs.push(dir);
  return dir;
}

it("fillOnce: the loser of a race drops its own directory and uses the winner's; nothing partial is left", async () => {
  const cache = emptyCache();
  const target = join(cache, "tool", "key");
  let releaseSlow!: () => void;
  const slowMayFinish = new Promise<void>((resolve) => (releaseSlow = resolve));
  // The slow fill starts first and finishes last: its rename finds the fast one's directory in place.
  const slow = fillOnce(target, async (staging) => {
    writeFileSync(join(staging, "who"), "slow");
    await slowMayFinish;
  });
  const fast = fillOnce(target, async (staging) => {
    writeFileSync(join(staging, "who"), "fast");
  });
  expect(await fast).toBe(target);
  releaseSlow();
  expect(await slow).toBe(target);
  expect(readFileSync(join(target, "who"), "utf8")).toBe("fast");
  expect(readdirSync(join(cache, "tool"))).toEqual(["key"]);
  // A third caller finds it made and fills nothing.
  expect(
    await fillOnce(target, () => {
      throw new Error("filled again");
    }),
  ).toBe(target);
});

it("two installs of Verdaccio racing on an empty cache both succeed, with one install that serves", async () => {
  const cache = emptyCache();
  const [first, second] = await Promise.all([installRegistryTool({ cache }), installRegistryTool({ cache })]);
  expect(second).toBe(first);
  expect(readdirSync(join(cache, "registry"))).toEqual([basename(first)]);
  const registry = await startRegistry({ cache });
  try {
    expect(await pingRegistry(registry.url)).toBeUndefined();
  } finally {
    await registry.stop();
  }
}, 600_000);
