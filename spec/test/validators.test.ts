import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { operationalCatalog } from "../src/index.js";

const run = promisify(execFile);
const specDir = fileURLToPath(new URL("..", import.meta.url));
const redocly = join(specDir, "node_modules", ".bin", "redocly");
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  NO_COLOR: "1",
};

async function redoclyLint(file: string) {
  try {
    const { stdout, stderr } = await run(redocly, ["lint", file, "--config", join(specDir, "redocly.yaml")], {
      env,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

describe("openapi.yaml", () => {
  it("lints clean with Redocly CLI (recommended rules, no warnings)", async () => {
    const { code, output } = await redoclyLint(join(specDir, "openapi.yaml"));
    expect(output).toContain("Your API description is valid");
    expect(output).not.toMatch(/You have \d+ warnings?/);
    expect(code).toBe(0);
  });

  it("Redocly fails a broken copy (the lint test can fail)", async () => {
    const doc = parse(readFileSync(join(specDir, "openapi.yaml"), "utf8"));
    delete doc.info.license;
    doc.webhooks["/plant/webhook"].post.requestBody.content["application/json"].schema = {
      $ref: "#/components/schemas/Missing",
    };
    const dir = mkdtempSync(join(tmpdir(), "plant-spec-"));
    try {
      const file = join(dir, "broken.yaml");
      writeFileSync(file, stringify(doc));
      const { code, output } = await redoclyLint(file);
      expect(code).not.toBe(0);
      expect(output).toMatch(/Missing|Can't resolve/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is accepted by a second, independent validator (the official OpenAPI 3.1 JSON Schema)", async () => {
    const validator = new Validator();
    const result = await validator.validate(join(specDir, "openapi.yaml"));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("operational.yaml, the sender's own webhooks, is a valid OpenAPI 3.1 document naming the three events", async () => {
    const validator = new Validator();
    const result = await validator.validate(join(specDir, "operational.yaml"));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const types = operationalCatalog.map((entry) => entry.type);
    expect(types).toEqual(["subscription.disabled", "delivery.exhausted", "application.deleted"]);
  });

  it("the second validator rejects a document breaking the 3.1 schema", async () => {
    const doc = parse(readFileSync(join(specDir, "openapi.yaml"), "utf8"));
    doc.components.securitySchemes.bearerAuth.type = "bearer";
    const result = await new Validator().validate(doc);
    expect(result.valid).toBe(false);
  });
});
