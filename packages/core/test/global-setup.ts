import { buildForTests } from "../../../test-support/processes.js";

/** The runtimes test runs core's built `dist/` under Bun and Deno: built once, before any test file starts. */
export default function setup() {
  buildForTests(["@plant-store/core"]);
}
