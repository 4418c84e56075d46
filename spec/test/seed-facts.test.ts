import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  document,
  SECURITY_SCHEME,
  WEBHOOK_METHOD,
  WEBHOOK_NAME,
  WEBHOOK_OPERATION_ID,
  WEBHOOK_PATH,
  WEBHOOK_REFERENCE,
} from "../src/index.js";

const yamlDoc = parse(readFileSync(new URL("../openapi.yaml", import.meta.url), "utf8"));

// Every fact the seed states, pinned on both the YAML source and the exported document.
describe.each([
  ["openapi.yaml", yamlDoc],
  ["exported document", document],
])("seed facts (%s)", (_label, doc) => {
  it("is OpenAPI 3.1.0, 'OpenAPI Plant Store' 1.0.0 under MIT", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("OpenAPI Plant Store");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    expect(doc.info.description).toMatch(/example service that demonstrates interface-description features/);
  });

  it("has one server {base_url} with a localhost default", () => {
    expect(doc.servers).toHaveLength(1);
    expect(doc.servers[0].url).toBe("{base_url}");
    expect(doc.servers[0].variables.base_url.default).toMatch(/^http:\/\/localhost:\d+$/);
  });

  it("is globally secured by an HTTP bearer scheme named bearerAuth", () => {
    expect(doc.security).toEqual([{ [SECURITY_SCHEME]: [] }]);
    expect(doc.components.securitySchemes[SECURITY_SCHEME]).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("declares no paths", () => {
    expect(doc.paths).toEqual({});
  });

  it("declares exactly one webhook, New Plant, as POST /plant/webhook", () => {
    expect(Object.keys(doc.webhooks)).toEqual([WEBHOOK_PATH]);
    const item = doc.webhooks[WEBHOOK_PATH];
    expect(Object.keys(item).filter((k) => k !== "parameters")).toEqual([WEBHOOK_METHOD.toLowerCase()]);
    const op = item.post;
    expect(op.summary).toBe(WEBHOOK_NAME);
    expect(op.operationId).toBe(WEBHOOK_OPERATION_ID);
    expect(op.description).toBe("Information about a new plant added to the store");
    expect(op.requestBody.required).toBe(true);
    expect(op.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/NewPlant",
    });
    expect(Object.keys(op.requestBody.content["application/json"].examples).length).toBeGreaterThan(0);
    expect(WEBHOOK_REFERENCE).toBe(`WEBHOOK ${WEBHOOK_PATH}`);
  });

  it("defines Plant, NewPlant and Error as the seed says", () => {
    const { Plant, NewPlant, Error: ErrorSchema } = doc.components.schemas;
    expect(Plant.required).toEqual(["name"]);
    expect(Plant.properties.name.type).toBe("string");
    expect(Plant.properties.tag.type).toBe("string");
    expect(NewPlant.allOf[0]).toEqual({ $ref: "#/components/schemas/Plant" });
    expect(NewPlant.allOf[1].required).toEqual(["id"]);
    expect(NewPlant.allOf[1].properties.id).toMatchObject({ type: "integer", format: "int64" });
    expect(ErrorSchema.required).toEqual(["error", "message"]);
    expect(ErrorSchema.properties.error).toMatchObject({ type: "integer", format: "int32" });
    expect(ErrorSchema.properties.message.type).toBe("string");
  });

  it("documents the receiver's responses and the Standard Webhooks headers as optional", () => {
    const op = doc.webhooks[WEBHOOK_PATH].post;
    expect(Object.keys(op.responses).sort()).toEqual(
      ["200", "400", "401", "404", "405", "408", "413", "415", "422", "431", "503"].sort(),
    );
    for (const [code, response] of Object.entries(op.responses) as [string, any][]) {
      if (code === "200") continue;
      expect(response.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    }
    const headers = op.parameters.map((p: { $ref: string }) => {
      const name = p.$ref.split("/").pop() as string;
      return doc.components.parameters[name];
    });
    expect(headers.map((h: any) => [h.name, h.in, h.required])).toEqual([
      ["webhook-id", "header", false],
      ["webhook-timestamp", "header", false],
      ["webhook-signature", "header", false],
    ]);
  });
});
