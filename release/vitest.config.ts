import { defineProject, mergeConfig } from "vitest/config";
import { shared } from "../vitest.shared.js";

// Packing, installing from the registry and compiling better-sqlite3 for three Node versions are slow: the
// timeouts bound a hung step, not a slow one. The files run two at a time: they read the same packed tarballs, and
// share only caches that are safe to share (npm's, the pnpm store, ~/.cache/plant-store-release with its
// rename-into-place installs, and the workspace's turbo cache that the publish dry run replays); consumer/<node> is
// consumer.test's.
export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "release",
      testTimeout: 600_000,
      hookTimeout: 1_800_000, // the consumer install (test/consumer.test.ts)
      globalSetup: ["./test/global-setup.ts"],
    },
  }),
);
