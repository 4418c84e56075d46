import { buildReceiverOpenApi } from "@plant-store/admin-api";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";

const document = buildReceiverOpenApi();

describe("apps/receiver/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  // The committed document is generated from @plant-store/admin-api's `receiverRoutes`; `pnpm --filter
  // @plant-store/receiver gen` rewrites it. A stale file fails with the diff.
  it("is the document generated from the route table (run `pnpm --filter @plant-store/receiver gen` when this fails)", async () => {
    await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot("../openapi.json");
  });
});
