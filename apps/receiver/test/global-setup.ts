import { buildForTests } from "../../../test-support/processes.js";

/** The tests run the built bins, as users do. */
export default function setup() {
  buildForTests(["@plant-store/receiver"]);
}
