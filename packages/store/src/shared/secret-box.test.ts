import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, parseEncryptionKey } from "./secret-box.js";

const quiet = { warn() {} };

describe("parseEncryptionKey", () => {
  it("accepts 32 bytes as hex, base64 and base64url", () => {
    const key = randomBytes(32);
    for (const text of [
      key.toString("hex"),
      key.toString("base64"),
      key.toString("base64url"),
      ` ${key.toString("hex")}\n`,
    ]) {
      expect(parseEncryptionKey(text).equals(key)).toBe(true);
    }
  });

  it("rejects other lengths and alphabets without echoing the value", () => {
    for (const bad of [
      "",
      "abc",
      randomBytes(16).toString("hex"),
      randomBytes(31).toString("base64"),
      "z".repeat(64),
    ]) {
      expect(() => parseEncryptionKey(bad)).toThrow(
        expect.objectContaining({ code: "invalid_encryption_key" }),
      );
    }
    try {
      parseEncryptionKey("secret-looking-value");
    } catch (error) {
      expect((error as Error).message).not.toContain("secret-looking-value");
    }
  });
});

describe("createSecretBox", () => {
  it("seals with a versioned, key-identified AES-256-GCM envelope and opens it again", () => {
    const box = createSecretBox({ key: randomBytes(32).toString("base64"), logger: quiet });
    const sealed = box.seal("psk_value", "sub_1:token");
    expect(sealed).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
    // 12-byte IV + plaintext + 16-byte tag
    expect(Buffer.from(sealed.split(":")[3]!, "base64url")).toHaveLength(12 + 9 + 16);
    expect(box.open(sealed, "sub_1:token")).toBe("psk_value");
    expect(box.seal("psk_value", "sub_1:token")).not.toBe(sealed);
  });

  it("fails authentication for another AAD or a flipped bit", () => {
    const box = createSecretBox({ key: randomBytes(32).toString("hex"), logger: quiet });
    const sealed = box.seal("whsec_x", "sub_1:secret");
    expect(() => box.open(sealed, "sub_2:secret")).toThrow(
      expect.objectContaining({ code: "decryption_failed" }),
    );
    const raw = Buffer.from(sealed.split(":")[3]!, "base64url");
    raw[14]! ^= 1;
    const tampered = `${sealed.split(":").slice(0, 3).join(":")}:${raw.toString("base64url")}`;
    expect(() => box.open(tampered, "sub_1:secret")).toThrow(
      expect.objectContaining({ code: "decryption_failed" }),
    );
  });

  it("opens values sealed with a previous key after rotation", () => {
    const old = randomBytes(32).toString("hex");
    const sealed = createSecretBox({ key: old, logger: quiet }).seal("v", "a");
    const rotated = createSecretBox({
      key: randomBytes(32).toString("hex"),
      previousKeys: [old],
      logger: quiet,
    });
    expect(rotated.open(sealed, "a")).toBe("v");
    expect(rotated.seal("v", "a").split(":")[2]).not.toBe(sealed.split(":")[2]);
  });

  it("passes values through in clear without a key and warns once, never with the value", () => {
    const warnings: string[] = [];
    const box = createSecretBox({ logger: { warn: (m) => warnings.push(m) } });
    expect(box.encrypting).toBe(false);
    expect(box.seal("psk_clear", "a")).toBe("psk_clear");
    expect(box.seal("psk_clear2", "a")).toBe("psk_clear2");
    expect(box.open("psk_clear", "a")).toBe("psk_clear");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain("psk_clear");
    expect(() => box.open("enc:v1:deadbeef:AAAA", "a")).toThrow(
      expect.objectContaining({ code: "encryption_key_missing" }),
    );
  });
});
