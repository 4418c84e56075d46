import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { activeSecrets, StoreConfigError, StoreInputError } from "../../src/index.js";
import { manualClock, type TestBackend } from "../support/backends.js";

const KEY = randomBytes(32).toString("base64");
const OTHER_KEY = randomBytes(32).toString("hex");
const TOKEN = "psk_TestTokenValue0001";
const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const SECRET_2 = `whsec_${randomBytes(32).toString("base64")}`;

/** Subscriptions: CRUD, validation, encryption at rest, secret rotation. */
export function subscriptionConformance(backend: () => TestBackend): void {
  describe("subscriptions", () => {
    it("keeps each subscription's signing scheme (default symmetric), and hands it to the claim", async () => {
      const store = await backend().open();
      const plain = await store.subscriptions.create({
        url: "https://a.example/hook",
        token: TOKEN,
        secrets: [SECRET],
      });
      const both = await store.subscriptions.create({
        url: "https://b.example/hook",
        token: TOKEN,
        signing: "both",
      });
      expect(plain.signing).toBe("symmetric");
      expect(both.signing).toBe("both");
      expect((await store.subscriptions.update(plain.id, { signing: "asymmetric" })).signing).toBe(
        "asymmetric",
      );
      expect((await store.subscriptions.update(plain.id, { url: "https://c.example/hook" })).signing).toBe(
        "asymmetric",
      );
      expect((await store.subscriptions.get(both.id))?.signing).toBe("both");
      await expect(store.subscriptions.update(plain.id, { signing: "v1a" as never })).rejects.toMatchObject({
        code: "invalid_signing",
        message: expect.stringContaining("symmetric, asymmetric, both"),
      });
      await expect(
        store.subscriptions.create({ url: "https://d.example/hook", token: TOKEN, signing: "" as never }),
      ).rejects.toBeInstanceOf(StoreInputError);
      await store.outbox.publish({ id: 1, name: "Fern" });
      const claimed = await store.outbox.claim(10, { leaseMs: 30_000, workerId: "w" });
      expect(Object.fromEntries(claimed.map((d) => [d.subscription.id, d.subscription.signing]))).toEqual({
        [plain.id]: "asymmetric",
        [both.id]: "both",
      });
      await store.close();
    });

    it("creates, reads, lists, updates and deletes", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now });
      const a = await store.subscriptions.create({
        url: "https://a.example/hook",
        token: TOKEN,
        secrets: [SECRET],
      });
      clock.advance(10);
      const b = await store.subscriptions.create({
        url: "https://b.example/hook",
        token: "psk_b",
        enabled: false,
      });
      expect(a.id).toMatch(/^sub_[0-9A-Z]{26}$/);
      expect(a).toMatchObject({
        url: "https://a.example/hook",
        token: TOKEN,
        enabled: true,
        failingSince: null,
      });
      expect(a.secrets).toEqual([{ secret: SECRET, expiresAt: null, createdAt: new Date(clock.t - 10) }]);
      expect(b).toMatchObject({ token: "psk_b", secrets: [], enabled: false });
      expect((await store.subscriptions.list()).map((s) => s.id)).toEqual([a.id, b.id]);
      expect((await store.subscriptions.list({ enabled: true })).map((s) => s.id)).toEqual([a.id]);

      clock.advance(5);
      const updated = await store.subscriptions.update(a.id, {
        url: "https://a2.example/hook",
        token: "psk_new",
      });
      expect(updated).toMatchObject({ url: "https://a2.example/hook", token: "psk_new", secrets: a.secrets });
      expect(updated.updatedAt.getTime()).toBe(clock.t);
      expect(await store.subscriptions.delete(b.id)).toBe(true);
      expect(await store.subscriptions.delete(b.id)).toBe(false);
      expect(await store.subscriptions.get(b.id)).toBeNull();
      await expect(store.subscriptions.update("sub_missing", {})).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("keeps the event types a subscription receives (null = every type) and validates them", async () => {
      const store = await backend().open();
      const all = await store.subscriptions.create({ url: "https://a.example/hook", token: TOKEN });
      expect(all.eventTypes).toBeNull();
      const some = await store.subscriptions.create({
        url: "https://b.example/hook",
        token: TOKEN,
        eventTypes: ["plantSold", "newPlant"],
      });
      expect(some.eventTypes).toEqual(["plantSold", "newPlant"]);
      expect((await store.subscriptions.get(some.id))!.eventTypes).toEqual(["plantSold", "newPlant"]);
      expect((await store.subscriptions.list()).map((sub) => sub.eventTypes)).toEqual([
        null,
        ["plantSold", "newPlant"],
      ]);
      // Other patches keep the filter; an explicit null clears it.
      expect((await store.subscriptions.update(some.id, { token: "psk_2" })).eventTypes).toEqual([
        "plantSold",
        "newPlant",
      ]);
      expect((await store.subscriptions.update(some.id, { eventTypes: null })).eventTypes).toBeNull();
      expect((await store.subscriptions.update(all.id, { eventTypes: ["newPlant"] })).eventTypes).toEqual([
        "newPlant",
      ]);

      for (const eventTypes of [[], ["newPlant", "newPlant"], [""], ["x".repeat(101)], [5], "newPlant"]) {
        await expect(
          store.subscriptions.create({
            url: "https://c.example/hook",
            token: TOKEN,
            eventTypes: eventTypes as string[],
          }),
        ).rejects.toMatchObject({ name: "StoreInputError", code: "invalid_event_types" });
        await expect(
          store.subscriptions.update(all.id, { eventTypes: eventTypes as string[] }),
        ).rejects.toMatchObject({ code: "invalid_event_types" });
      }
      expect((await store.subscriptions.list()).map((sub) => sub.eventTypes)).toEqual([["newPlant"], null]);
    });

    it("delete removes its pending deliveries; the outcome of one leased at that moment is refused, not recorded", async () => {
      const store = await backend().open();
      const gone = await store.subscriptions.create({ url: "https://gone.example/hook", token: "psk_g" });
      const kept = await store.subscriptions.create({ url: "https://kept.example/hook", token: "psk_k" });
      await store.outbox.publish({ id: 1, name: "Fern" });
      await store.outbox.publish({ id: 2, name: "Moss" });
      const leased = (await store.outbox.claim(10, { leaseMs: 60_000, workerId: "w" })).find(
        (d) => d.subscription.id === gone.id,
      );
      expect(leased).toBeDefined();
      expect(await store.subscriptions.delete(gone.id)).toBe(true);
      expect((await store.outbox.listDeliveries({ subscriptionId: gone.id })).items).toEqual([]);
      expect((await store.outbox.listDeliveries({ subscriptionId: kept.id })).items).toHaveLength(2);
      await expect(
        store.outbox.record(leased!, { kind: "delivered", status: 200, latencyMs: 1 }),
      ).rejects.toMatchObject({
        code: "lease_lost",
      });
      // Messages stay: they belong to every subscription, and the kept one still delivers them.
      expect(await store.outbox.getMessage(leased!.message.id)).not.toBeNull();
    });

    it("validates urls and credentials without echoing them", async () => {
      const store = await backend().open();
      await expect(
        store.subscriptions.create({ url: "ftp://x.example", token: TOKEN }),
      ).rejects.toBeInstanceOf(StoreInputError);
      await expect(
        store.subscriptions.create({ url: "https://user:pw@x.example", token: TOKEN }),
      ).rejects.toMatchObject({
        code: "invalid_url",
      });
      const bad = store.subscriptions.create({ url: "https://x.example", token: "psk_abc def" });
      await expect(bad).rejects.toMatchObject({ code: "invalid_token" });
      expect(String(await bad.catch((e: Error) => e.message))).not.toContain("psk_abc");
      await expect(store.subscriptions.create({ url: "https://x.example" } as never)).rejects.toMatchObject({
        code: "invalid_token",
      });
      const notBase64 = store.subscriptions.create({
        url: "https://x.example",
        token: TOKEN,
        secrets: ["whsec_!!secret!!"],
      });
      await expect(notBase64).rejects.toMatchObject({ code: "invalid_secret" });
      expect(String(await notBase64.catch((e: Error) => e.message))).not.toContain("!!secret!!");
      await expect(
        store.subscriptions.create({ url: "https://x.example", token: TOKEN, secrets: [""] }),
      ).rejects.toMatchObject({
        code: "invalid_secret",
      });
    });

    it("encrypts tokens and secrets at rest with AES-256-GCM when a key is configured", async () => {
      const store = await backend().open({ encryptionKey: KEY });
      const sub = await store.subscriptions.create({
        url: "https://a.example",
        token: TOKEN,
        secrets: [SECRET],
      });
      const [row] = await backend().sql("SELECT token, secrets FROM {t}subscriptions WHERE id = ?", [sub.id]);
      const text = JSON.stringify(row);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(SECRET.slice(6));
      expect(row.token).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
      expect(await store.subscriptions.get(sub.id)).toMatchObject({
        token: TOKEN,
        secrets: [{ secret: SECRET }],
      });

      // Same plaintext, fresh IV: ciphertexts differ.
      const again = await store.subscriptions.create({ url: "https://b.example", token: TOKEN });
      const [row2] = await backend().sql("SELECT token FROM {t}subscriptions WHERE id = ?", [again.id]);
      expect(row2.token).not.toBe(row.token);

      // A ciphertext moved to another row fails authentication (the row id is in the AAD).
      await backend().sql("UPDATE {t}subscriptions SET token = ? WHERE id = ?", [row.token, again.id]);
      await expect(store.subscriptions.get(again.id)).rejects.toMatchObject({ code: "decryption_failed" });

      const rotated = await backend().open({ encryptionKey: OTHER_KEY, previousEncryptionKeys: [KEY] });
      expect((await rotated.subscriptions.get(sub.id))!.token).toBe(TOKEN);
    });

    it("refuses to open when stored credentials were encrypted with a key that is not configured", async () => {
      const store = await backend().open({ encryptionKey: KEY });
      const sub = await store.subscriptions.create({
        url: "https://a.example",
        token: TOKEN,
        secrets: [SECRET],
      });
      await store.subscriptions.create({ url: "https://b.example", token: "psk_clear_before" });
      const [row] = await backend().sql("SELECT token FROM {t}subscriptions WHERE id = ?", [sub.id]);
      const keyId = /^enc:v1:([0-9a-f]{8}):/.exec(row.token)![1]!;

      // Without the check a service that never decrypts (a publisher, a receiver) opens; reading fails then.
      const lenient = await backend().open({ encryptionKey: OTHER_KEY });
      await expect(lenient.subscriptions.get(sub.id)).rejects.toMatchObject({
        code: "encryption_key_unknown",
      });
      const wrong = await backend()
        .open({ encryptionKey: OTHER_KEY, checkEncryptionKeys: true })
        .catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(StoreConfigError);
      expect(wrong).toMatchObject({
        code: "encryption_key_unknown",
        message: expect.stringContaining(keyId),
      });
      expect((wrong as Error).message).not.toContain(KEY);
      expect((wrong as Error).message).not.toContain(OTHER_KEY);
      await expect(backend().open({ checkEncryptionKeys: true })).rejects.toMatchObject({
        code: "encryption_key_missing",
        message: expect.stringContaining(keyId),
      });

      // The same key, or the new key with the old one as a previous key, opens; one tampered row does not
      // stop the start (it fails alone when used).
      const other = await store.subscriptions.create({ url: "https://c.example", token: TOKEN });
      await backend().sql("UPDATE {t}subscriptions SET token = ? WHERE id = ?", [row.token, other.id]);
      expect((await (await backend().open({ encryptionKey: KEY })).subscriptions.get(sub.id))!.token).toBe(
        TOKEN,
      );
      const rotated = await backend().open({ encryptionKey: OTHER_KEY, previousEncryptionKeys: [KEY] });
      expect((await rotated.subscriptions.get(sub.id))!.secrets[0]!.secret).toBe(SECRET);
      await expect(rotated.subscriptions.get(other.id)).rejects.toMatchObject({ code: "decryption_failed" });
    });

    it("refuses a rotation grace that is not a time from 0 to 7 days", async () => {
      const store = await backend().open();
      const sub = await store.subscriptions.create({
        url: "https://a.example",
        token: TOKEN,
        secrets: [SECRET],
      });
      for (const graceMs of [
        1e20,
        Number.POSITIVE_INFINITY,
        Number.NaN,
        -1,
        7 * 86_400_000 + 1,
        "60" as never,
      ]) {
        await expect(store.subscriptions.rotateSecret(sub.id, SECRET_2, { graceMs })).rejects.toMatchObject({
          name: "StoreInputError",
          code: "invalid_grace",
        });
      }
      expect((await store.subscriptions.get(sub.id))!.secrets).toHaveLength(1);
      const rotated = await store.subscriptions.rotateSecret(sub.id, SECRET_2, { graceMs: 7 * 86_400_000 });
      expect(rotated.secrets[0]!.expiresAt!.getTime()).toBe(
        rotated.secrets[1]!.createdAt.getTime() + 7 * 86_400_000,
      );
    });

    it("stores credentials in clear without a key, and warns once", async () => {
      const warnings: string[] = [];
      const store = await backend().open({ logger: { warn: (m) => warnings.push(m) } });
      const sub = await store.subscriptions.create({
        url: "https://a.example",
        token: TOKEN,
        secrets: [SECRET],
      });
      await store.subscriptions.create({ url: "https://b.example", token: TOKEN });
      const [row] = await backend().sql("SELECT token FROM {t}subscriptions WHERE id = ?", [sub.id]);
      expect(row.token).toBe(TOKEN);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/clear text/);
      expect(warnings[0]).not.toContain(TOKEN);
      // Rows written in clear stay readable after a key is configured.
      const keyed = await backend().open({ encryptionKey: KEY });
      expect((await keyed.subscriptions.get(sub.id))!.token).toBe(TOKEN);
    });

    it("rejects a malformed encryption key without echoing it", async () => {
      await expect(backend().open({ encryptionKey: "too-short-key" })).rejects.toMatchObject({
        code: "invalid_encryption_key",
        message: expect.not.stringContaining("too-short-key"),
      });
    });

    it("rotates a secret with a grace period during which both are active", async () => {
      const clock = manualClock();
      const store = await backend().open({ now: clock.now, encryptionKey: KEY });
      const sub = await store.subscriptions.create({
        url: "https://a.example",
        token: TOKEN,
        secrets: [SECRET],
      });
      const rotated = await store.subscriptions.rotateSecret(sub.id, SECRET_2, { graceMs: 60_000 });
      expect(rotated.secrets.map((s) => [s.secret, s.expiresAt?.getTime() ?? null])).toEqual([
        [SECRET, clock.t + 60_000],
        [SECRET_2, null],
      ]);
      expect(activeSecrets(rotated, clock.t)).toEqual([SECRET, SECRET_2]);
      expect(activeSecrets(rotated, clock.t + 60_000)).toEqual([SECRET_2]);
      // Expired secrets are dropped at the next rotation.
      clock.advance(61_000);
      const third = `whsec_${randomBytes(32).toString("base64")}`;
      const again = await store.subscriptions.rotateSecret(sub.id, third, { graceMs: 1000 });
      expect(again.secrets.map((s) => s.secret)).toEqual([SECRET_2, third]);
    });
  });
}
