import { describe, expect, it } from "vitest";
import { adminOpenApi } from "../src/openapi.js";

describe("apps/sender/openapi.json", () => {
  // The committed document is generated from @plant-store/admin-api's route table; `pnpm --filter
  // @plant-store/sender gen` rewrites it. In CI (and here, when it exists) a stale file fails with the diff.
  it("is the document generated from the route table (run `pnpm --filter @plant-store/sender gen` when this fails)", async () => {
    await expect(`${JSON.stringify(adminOpenApi, null, 2)}\n`).toMatchFileSnapshot("../openapi.json");
  });
});
