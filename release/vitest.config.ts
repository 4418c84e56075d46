import { defineProject, mergeConfig } from "vitest/config";
import { shared } from "../vitest.shared.js";

// Packing, installing from the registry and compiling better-sqlite3 for three Node versions take minutes,
// not seconds: the timeouts say so. The files run one after another (they share the packed tarballs).
export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "release",
      testTimeout: 600_000,
      hookTimeout: 600_000,
      fileParallelism: false,
      globalSetup: ["./test/global-setup.ts"],
    },
  }),
);
