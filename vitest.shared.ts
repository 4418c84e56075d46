import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Shared vitest settings: tests resolve workspace packages to their TypeScript sources. */
export const shared = defineConfig({
  resolve: { conditions: ["@plant-store/source"] },
  ssr: { resolve: { conditions: ["@plant-store/source"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: [fileURLToPath(new URL("./test-support/setup.ts", import.meta.url))],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most suites spend their time waiting on child processes, sockets, SQLite fsyncs and browsers, not on a core:
    // at least two files at a time even on two cores (vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
