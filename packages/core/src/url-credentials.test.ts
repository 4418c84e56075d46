import { describe, expect, it } from "vitest";
import { withoutCredentials } from "./url-credentials.js";

describe("withoutCredentials", () => {
  it("masks everything between // and the last @, also a password holding / or @", () => {
    expect(withoutCredentials("http://admin:s3cr/et@host/x")).toBe("http://…@host/x");
    expect(withoutCredentials("https://u:p@ss@host:8443/")).toBe("https://…@host:8443/");
    expect(withoutCredentials("https://host/hook")).toBe("https://host/hook");
    expect(withoutCredentials("not a url")).toBe("not a url");
  });

  it("masks every query value (names kept) and the fragment", () => {
    expect(withoutCredentials("https://host/cb?api_key=s3cret&page=2")).toBe(
      "https://host/cb?api_key=…&page=…",
    );
    expect(withoutCredentials("https://host/cb?s3cret")).toBe("https://host/cb?…");
    expect(withoutCredentials("https://host/cb?a=&&b=1")).toBe("https://host/cb?a=&&b=…");
    expect(withoutCredentials("https://host/cb#access_token=s3cret")).toBe("https://host/cb#…");
    expect(withoutCredentials("https://host/cb?token=x#y")).toBe("https://host/cb?token=…#…");
    expect(withoutCredentials("https://u:pw@host/cb?key=s3cret")).toBe("https://…@host/cb?key=…");
    expect(withoutCredentials("/relative?key=s3cret")).toBe("/relative?key=…");
    for (const text of ["https://host/cb?api_key=s3cret", "https://u:s3cret@host/?q=s3cret#s3cret"])
      expect(withoutCredentials(text)).not.toContain("s3cret");
  });
});
