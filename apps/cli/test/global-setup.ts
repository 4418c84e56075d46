import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The tests run the built bins (CLI, the sender and the receiver), as users do. */
export default function setup() {
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
