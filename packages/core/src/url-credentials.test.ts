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

  it("keeps the host when an @ is in the query, path or fragment, and masks what follows it", () => {
    expect(withoutCredentials("https://hooks.example.com/in?sig=ab@cdSECRET")).toBe(
      "https://hooks.example.com/in?sig=…",
    );
    expect(withoutCredentials("https://hooks.example.com/in?a=1&sig=x@y@SECRET&b=2")).toBe(
      "https://hooks.example.com/in?a=…&sig=…&b=…",
    );
    expect(withoutCredentials("https://host/users/@me/hook")).toBe("https://host/users/@me/hook");
    expect(withoutCredentials("https://host/cb#token=a@bSECRET")).toBe("https://host/cb#…");
    expect(withoutCredentials("https://user:pw@host:8443/p@th?k=v@SECRET#f@SECRET")).toBe(
      "https://…@host:8443/p@th?k=…#…",
    );
    expect(withoutCredentials("https://user@host/")).toBe("https://…@host/");
    expect(withoutCredentials("http://[::1]:8080/x?k=@SECRET")).toBe("http://[::1]:8080/x?k=…");
  });

  it("keeps a bare ? or # as it was", () => {
    expect(withoutCredentials("https://host/cb?")).toBe("https://host/cb?");
    expect(withoutCredentials("https://host/cb#")).toBe("https://host/cb#");
    expect(withoutCredentials("https://host/cb?#")).toBe("https://host/cb?#");
  });

  it("masks a text that is not a URL without ever keeping what follows an @ in its query or fragment", () => {
    expect(withoutCredentials("http://ho st/in?sig=ab@cdSECRET")).toBe("http://…");
    expect(withoutCredentials("http://u:p?SECRET@ho st/x")).toBe("http://…");
    expect(withoutCredentials("http://u:p#SECRET@ho st/x")).toBe("http://…");
    expect(withoutCredentials("http://u:s3/cret@ho st/x?k=SECRET")).toBe("http://…@ho st/x?k=…");
    expect(withoutCredentials("no//slashes?k=SECRET")).toBe("no//slashes?k=…");
  });

  it("writes the mask it is given, for the OpenTelemetry convention's REDACTED", () => {
    expect(withoutCredentials("https://u:p@host/in?sig=ab@cd#f", "REDACTED")).toBe(
      "https://REDACTED@host/in?sig=REDACTED#REDACTED",
    );
    expect(withoutCredentials("/relative?key=s3cret", "REDACTED")).toBe("/relative?key=REDACTED");
  });
});
