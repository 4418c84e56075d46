// The copier is shared with the apps' tests (test-support/repository-copy.ts).
export { copyRepository, ROOT } from "../../test-support/repository-copy.js";
