import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The tests run the built bins (CLI, the sender and the receiver), as users do. */
export default function setup() {
  // Under turbo (`npm test`) the build already ran as a dependency of this task; a nested turbo would race it.
  if (process.env.TURBO_HASH) {
    console.log("[global-setup] built by turbo (dependsOn build)");
    return;
  }
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  execFileSync(
    `${root}node_modules/.bin/turbo`,
    [
      "run",
      "build",
      "--filter=@plant-store/cli...",
      "--filter=@plant-store/sender...",
      "--filter=@plant-store/receiver...",
      "--output-logs=errors-only",
    ],
    { cwd: root, stdio: "inherit", env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } },
  );
}
