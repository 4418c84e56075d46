import { defineConfig } from "vitest/config";

// One entry point for the whole workspace (`pnpm vitest` at the root, editors); turbo runs each
// project's own `vitest run` for CI so results are per package.
export default defineConfig({
  test: {
    projects: ["spec", "packages/*", "apps/*", "contracts"],
  },
});
