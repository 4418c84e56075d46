import { defineProject, mergeConfig } from "vitest/config";
import { shared } from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  // Every CLI test starts several Node processes (see budget() in test/support.ts for the heaviest): 120 s fits
  // them on a loaded two-core machine; an idle one needs a few seconds.
  defineProject({ test: { name: "cli", globalSetup: ["./test/global-setup.ts"], testTimeout: 120_000 } }),
);
