import { describe, expect, it } from "vitest";
import { checkTarget } from "./check-target.js";

const token = "psk_4f9GhT2kLmNpQrStUvWx";

describe("checkTarget", () => {
  it("accepts absolute http and https URLs with a b64token", () => {
    for (const url of ["http://127.0.0.1:8080/plant/webhook", "https://plants.example.com/hook?x=1"]) {
      const checked = checkTarget({ url, token, secrets: [] });
      expect(checked.ok && checked.url.href).toBe(new URL(url).href);
    }
    expect(checkTarget({ url: "https://a.example/", token: "abc-._~+/==", secrets: [] }).ok).toBe(true);
  });

  it("rejects unusable URLs without echoing credentials", () => {
    const cases: Array<[string, RegExp]> = [
      ["not a url", /not a valid absolute URL/],
      ["/plant/webhook", /not a valid absolute URL/],
      ["ftp://example.com/", /http or https, not ftp:/],
      ["file:///etc/passwd", /http or https, not file:/],
      ["javascript:alert(1)", /http or https/],
      ["https://user:hunter2@example.com/", /must not contain credentials/],
    ];
    for (const [url, reason] of cases) {
      const checked = checkTarget({ url, token, secrets: [] });
      expect(checked.ok).toBe(false);
      if (!checked.ok) {
        expect(checked.reason).toMatch(reason);
        expect(checked.reason).not.toContain("hunter2");
      }
    }
  });

  it("rejects tokens that cannot be sent as a bearer token, without echoing them", () => {
    for (const bad of ["", "psk_a\r\nx-injected: 1", "psk a", "psk_ü", "=abc", "a=b"]) {
      const checked = checkTarget({ url: "https://example.com/", token: bad, secrets: [] });
      expect(checked.ok).toBe(false);
      if (!checked.ok && bad !== "") expect(checked.reason).not.toContain(bad);
    }
  });
});
