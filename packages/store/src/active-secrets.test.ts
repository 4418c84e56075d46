import { randomBytes } from "node:crypto";
import { createSecret } from "@plant-store/core";
import { describe, expect, it } from "vitest";
import { activeSecrets, isActiveSecret } from "./active-secrets.js";
import { createSecretBox } from "./shared/secret-box.js";
import {
  activeSecretsOf,
  decodeSubscription,
  type SubscriptionRow,
  sealSecrets,
} from "./shared/subscription-codec.js";

describe("active secrets", () => {
  it("a secret signs until its expiry, not at it", () => {
    expect(isActiveSecret(null, 1000)).toBe(true);
    expect(isActiveSecret(1001, 1000)).toBe(true);
    expect(isActiveSecret(1000, 1000)).toBe(false);
    expect(isActiveSecret(999, 1000)).toBe(false);
  });

  it("the public Subscription and the claim's stored secrets agree at every instant", () => {
    const box = createSecretBox({ key: randomBytes(32).toString("base64"), logger: { warn() {} } });
    const [a, b, c] = [createSecret(), createSecret(), createSecret()];
    const stored = sealSecrets(
      box,
      "sub_1",
      [a, { secret: b, expiresAt: 2000 }, { secret: c, expiresAt: 1000 }],
      0,
    );
    const row = {
      id: "sub_1",
      url: "https://example.com/hook",
      token: box.seal("psk_t", "sub_1:token"),
      secrets: JSON.stringify(stored),
      signing: "symmetric",
      enabled: 1,
      event_types: null,
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      created_at: 0,
      updated_at: 0,
      application_id: "app_default",
      uid: null,
      description: "",
      metadata: "{}",
      rate_limit: null,
      headers: null,
    } satisfies SubscriptionRow;
    const subscription = decodeSubscription(box, row);
    for (const now of [0, 999, 1000, 1999, 2000, 3000]) {
      expect(activeSecrets(subscription, now)).toEqual(activeSecretsOf(box, "sub_1", row.secrets, now));
    }
    expect(activeSecrets(subscription, 1500)).toEqual([a, b]);
  });
});
