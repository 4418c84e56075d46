import { describe, expect, it } from "vitest";
import { checkTarget, TARGET_URLS_KEPT } from "./check-target.js";

const token = "psk_4f9GhT2kLmNpQrStUvWx";

describe("checkTarget", () => {
  it("accepts absolute http and https URLs with a b64token", () => {
    for (const url of ["http://127.0.0.1:8080/plant/webhook", "https://plants.example.com/hook?x=1"]) {
      const checked = checkTarget({ url, token, secrets: [] });
      expect(checked.ok && checked.href).toBe(new URL(url).href);
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

describe("checkTarget's kept verdicts", () => {
  const urls = [
    "http://127.0.0.1:8080/plant/webhook",
    "https://plants.example.com/hook?x=1",
    "HTTPS://Plants.Example.com:443/a/../hook",
    "not a url",
    "ftp://example.com/",
    "https://user:hunter2@example.com/",
  ];
  const tokens = [token, "abc-._~+/==", "", "psk a", "a=b"];

  it("gives the same verdict with the URL's href, whether the URL's verdict was kept or not", () => {
    const first = new Map<string, ReturnType<typeof checkTarget>>();
    for (const round of [1, 2]) {
      for (const url of urls) {
        for (const t of tokens) {
          const kept = checkTarget({ url, token: t, secrets: [] });
          const label = `${url} ${t} (round ${round})`;
          const parsed = URL.canParse(url) ? new URL(url) : null;
          if (kept.ok) expect(kept.href, label).toBe(parsed?.href);
          if (round === 1) first.set(`${url} ${t}`, kept);
          else expect(kept, label).toEqual(first.get(`${url} ${t}`));
        }
      }
    }
  });

  it(`judges a URL again after ${TARGET_URLS_KEPT} others pushed its verdict out (the bound itself: kept.test.ts)`, () => {
    const first = checkTarget({ url: "https://h0.example", token, secrets: [] });
    for (let i = 1; i <= TARGET_URLS_KEPT; i++)
      checkTarget({ url: `https://h${i}.example/`, token, secrets: [] });
    expect(checkTarget({ url: "https://h0.example", token, secrets: [] })).toEqual(first);
    expect(first).toEqual({ ok: true, href: "https://h0.example/" });
  });
});
