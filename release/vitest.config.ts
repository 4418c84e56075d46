import { defineProject, mergeConfig } from "vitest/config";
import { shared } from "../vitest.shared.js";

// Packing, installing from the registry and compiling better-sqlite3 for three Node versions take minutes,
// not seconds: the timeouts say so. The files share the packed tarballs (read only) and nothing else.
export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "release",
      testTimeout: 600_000,
      hookTimeout: 600_000,
      globalSetup: ["./test/global-setup.ts"],
    },
  }),
);
