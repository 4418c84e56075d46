import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { classifyChanges, highestLevel } from "../src/classify.mjs";

const fixture = (name: string) => parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8"));
const base = fixture("base.yaml");

/** Every change against base.yaml of the fixture, as "level what". */
async function changes(name: string) {
  const found = await classifyChanges(base, fixture(name));
  return { level: highestLevel(found), lines: found.map((c) => `${c.level} ${c.what}`) };
}

describe("breaking changes", () => {
  it("a removed webhook", async () => {
    const { level, lines } = await changes("removed-webhook.yaml");
    expect(level).toBe("breaking");
    expect(lines).toEqual(["breaking [Removed] webhook POST /plant/webhook"]);
  });

  it("a new required property in a webhook's payload (and in the published schema)", async () => {
    const { level, lines } = await changes("new-required-property.yaml");
    expect(level).toBe("breaking");
    expect(lines).toContain(
      "breaking webhook POST /plant/webhook: [Added] required status to `price` in Request Body content (application/json)",
    );
    expect(lines).toContain('breaking schemas NewPlant: [Added] required "price"');
  });

  it("a changed type", async () => {
    const { level, lines } = await changes("changed-type.yaml");
    expect(level).toBe("breaking");
    expect(lines).toContain(
      "breaking webhook POST /plant/webhook: [Replaced] type definition of `id` in Request Body content (application/json)",
    );
    expect(lines).toContain('breaking schemas NewPlant: [Replaced] properties/id/type "integer" → "string"');
  });

  it("a narrowed enum", async () => {
    const { level, lines } = await changes("narrowed-enum.yaml");
    expect(level).toBe("breaking");
    expect(lines).toContain('breaking schemas NewPlant: [Removed] properties/light/enum "medium"');
    expect(lines.filter((l) => l.startsWith("breaking webhook POST /plant/webhook"))).toHaveLength(1);
  });

  it("a removed response field", async () => {
    const { level, lines } = await changes("removed-response-field.yaml");
    expect(level).toBe("breaking");
    expect(lines).toContain(
      "breaking route GET /plants/{id}: [Removed] property `storedAt` in Response 200 content (application/json)",
    );
  });
});

describe("minor changes", () => {
  it("an added webhook", async () => {
    expect(await changes("added-webhook.yaml")).toEqual({
      level: "minor",
      lines: ["minor [Added] webhook POST /plant/sold"],
    });
  });

  it("an added optional property", async () => {
    expect(await changes("added-optional-property.yaml")).toEqual({
      level: "minor",
      lines: [
        "minor webhook POST /plant/webhook: [Added] property `price` in Request Body content (application/json)",
        "minor schemas NewPlant: [Added] properties/price",
      ],
    });
  });

  it("an added route", async () => {
    expect(await changes("added-route.yaml")).toEqual({
      level: "minor",
      lines: ["minor [Added] route GET /plants"],
    });
  });
});

describe("patch changes", () => {
  it("descriptions and a summary reworded", async () => {
    const { level, lines } = await changes("description-only.yaml");
    expect(level).toBe("patch");
    expect(lines).toContain("patch route GET /plants/{id}: [Replaced] annotation (summary)");
    expect(lines).toContain("patch webhook POST /plant/webhook: [Replaced] annotation (description)");
    expect(lines.every((l) => l.startsWith("patch "))).toBe(true);
  });

  it("nothing at all when the document is the baseline", async () => {
    expect(await changes("base.yaml")).toEqual({ level: undefined, lines: [] });
  });
});

describe("a webhook's payload is judged for its senders and its receivers", () => {
  it("a widened enum is breaking: receivers that validate refuse the new value", async () => {
    const widened = fixture("base.yaml");
    widened.components.schemas.NewPlant.properties.light.enum.push("shade");
    const found = await classifyChanges(base, widened);
    expect(found.map((c) => `${c.level} ${c.what}`)).toContain(
      "breaking webhook POST /plant/webhook: [Replaced] possible values of `light` in Request Body content (application/json)",
    );
  });
});

describe("where api-smart-diff alone falls short", () => {
  it("removing the whole webhooks section is breaking (the tool has no rule for the section itself)", async () => {
    const { webhooks: _, ...withoutWebhooks } = base;
    const found = await classifyChanges(base, withoutWebhooks);
    expect(found.map((c) => `${c.level} ${c.what}`)).toEqual(["breaking [Removed] webhooks"]);
  });

  it("a $ref that points nowhere is an error naming the document and the place", async () => {
    const broken = fixture("base.yaml");
    broken.webhooks["/plant/webhook"].post.requestBody.content["application/json"].schema.$ref =
      "#/components/schemas/Gone";
    await expect(classifyChanges(base, broken, ["base.yaml", "spec/openapi.yaml"])).rejects.toThrow(
      /^spec\/openapi\.yaml: Missing \$ref pointer "#\/components\/schemas\/Gone".*\(at #\/webhooks\/~1plant~1webhook\/post\/requestBody/,
    );
  });

  const withProperty = (where: "request" | "response", type: string) => {
    const schema = { type: "object", properties: { a: { type } } };
    const content = { "application/json": { schema } };
    const operation =
      where === "request"
        ? { requestBody: { content }, responses: { "200": { description: "ok" } } }
        : { responses: { "200": { description: "ok", content } } };
    return { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/p": { post: operation } } };
  };

  it("a response property's replaced type is breaking (the tool reverses its rule for responses)", async () => {
    const found = await classifyChanges(
      withProperty("response", "string"),
      withProperty("response", "integer"),
    );
    expect(found.map((c) => c.level)).toEqual(["breaking"]);
  });

  it("a schema shared by a request and a response is judged in each place (refs are inlined first)", async () => {
    const shared = (values: string[]) => ({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/p": {
          post: {
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/S" } } } },
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { $ref: "#/components/schemas/S" } } },
              },
            },
          },
        },
      },
      components: { schemas: { S: { type: "string", enum: values } } },
    });
    const found = await classifyChanges(shared(["a", "b"]), shared(["a"]));
    const request = found.filter((c) => c.where.includes("/requestBody/"));
    const response = found.filter((c) => c.where.includes("/responses/"));
    expect(request.map((c) => c.level)).toEqual(["breaking"]); // a client may still send "b"
    expect(response.map((c) => c.level)).toEqual(["minor"]); // a client never gets "b" any more
  });
});
