import fc from "fast-check";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { describe, expect, it } from "vitest";
import { toBase64 } from "../src/encoding.js";
import { createSigning } from "../src/signing/create-signing.js";
import { implementations } from "./support/crypto-implementations.js";

// Secrets as users copy them: with the whsec_ prefix, or without it (both libraries strip an optional prefix).
const keyArb = fc.uint8Array({ minLength: 24, maxLength: 64 }).map(toBase64);
const secretArb = fc.tuple(keyArb, fc.boolean()).map(([key, prefixed]) => (prefixed ? `whsec_${key}` : key));
const idArb = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);
const bodyArb = fc.string({ unit: "grapheme", maxLength: 200 });

type Library = {
  name: string;
  create: (secret: string) => {
    sign: StandardWebhook["sign"];
    verify(body: string, headers: Record<string, string>): unknown;
  };
};
const LIBRARIES: Library[] = [
  { name: "svix", create: (secret) => new SvixWebhook(secret) },
  {
    name: "standardwebhooks",
    create: (secret) => {
      const webhook = new StandardWebhook(secret);
      return {
        sign: webhook.sign.bind(webhook),
        verify: (body, headers) => webhook.verify(body, headers, { jsonParse: false }),
      };
    },
  },
];

describe.each(implementations)("round trips on $implementation crypto", (crypto) => {
  const signing = createSigning(crypto);

  describe.each(LIBRARIES)("with $name", (library) => {
    it("it verifies what we sign, and we verify what it signs, with or without whsec_", async () => {
      await fc.assert(
        fc.asyncProperty(secretArb, idArb, bodyArb, async (secret, id, body) => {
          const timestamp = Math.floor(Date.now() / 1000);
          const theirs = library.create(secret);
          // Ours → theirs: the timestamp passed to sign() as a number, the header as the library reads it.
          const signature = await signing.signatureHeader({ secrets: [secret], id, timestamp, body });
          const headers = {
            "webhook-id": id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signature,
          };
          expect(() => theirs.verify(body, headers)).not.toThrow();
          // Theirs → ours: the same number handed to verify() as to sign() (no String() needed).
          const signed = theirs.sign(id, new Date(timestamp * 1000), body);
          expect(signed).toBe(signature);
          expect(await signing.verify({ secrets: [secret], id, timestamp, signature: signed, body })).toEqual(
            { ok: true, timestamp },
          );
          expect(
            await signing.verify({
              secrets: [secret],
              id,
              timestamp: String(timestamp),
              signature: signed,
              body,
            }),
          ).toEqual({ ok: true, timestamp });
        }),
        { numRuns: 40 },
      );
    });

    it("it still verifies a header that also carries our v1a signatures (a migration to ed25519)", async () => {
      const secret = `whsec_${toBase64(new Uint8Array(32).fill(3))}`;
      const { privateKey } = await signing.createKeyPair();
      const timestamp = Math.floor(Date.now() / 1000);
      const body = '{"id":1,"name":"Fern"}';
      const signature = await signing.signatureHeader({
        secrets: [secret],
        privateKeys: [privateKey],
        id: "msg_1",
        timestamp,
        body,
      });
      const headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
      };
      expect(() => library.create(secret).verify(body, headers)).not.toThrow();
      const v1aOnly = signature
        .split(" ")
        .filter((entry) => entry.startsWith("v1a,"))
        .join(" ");
      expect(() => library.create(secret).verify(body, { ...headers, "webhook-signature": v1aOnly })).toThrow(
        /No matching signature/,
      );
    });
  });

  it("svix's own svix-* header names carry our signature too", async () => {
    const secret = `whsec_${toBase64(new Uint8Array(24).fill(8))}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signing.signatureHeader({
      secrets: [secret],
      id: "msg_2",
      timestamp,
      body: "{}",
    });
    const headers = { "svix-id": "msg_2", "svix-timestamp": String(timestamp), "svix-signature": signature };
    expect(() => new SvixWebhook(secret).verify("{}", headers)).not.toThrow();
  });
});
