import { describe, expect, it } from "vitest";
import { withoutCredentials } from "./url-credentials.js";

describe("withoutCredentials", () => {
  it("masks everything between // and the last @, also a password holding / or @", () => {
    expect(withoutCredentials("http://admin:s3cr/et@host/x")).toBe("http://…@host/x");
    expect(withoutCredentials("https://u:p@ss@host:8443/")).toBe("https://…@host:8443/");
    expect(withoutCredentials("https://host/hook")).toBe("https://host/hook");
    expect(withoutCredentials("not a url")).toBe("not a url");
  });
});
