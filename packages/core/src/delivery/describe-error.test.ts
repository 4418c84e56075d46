import { describe, expect, it } from "vitest";
import { BLOCKED_ADDRESS_CODE, describeError, isBlockedAddressError, redact } from "./describe-error.js";

const blocked = () =>
  Object.assign(new Error("10.0.0.7 is a private address"), { code: BLOCKED_ADDRESS_CODE });

describe("isBlockedAddressError", () => {
  it("finds the code on the error or along its causes", () => {
    expect(isBlockedAddressError(blocked())).toBe(true);
    expect(isBlockedAddressError(new TypeError("fetch failed", { cause: blocked() }))).toBe(true);
    const deeper = new TypeError("fetch failed", { cause: new Error("connect", { cause: blocked() }) });
    expect(isBlockedAddressError(deeper)).toBe(true);
  });

  it("is false for other errors and codes", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(isBlockedAddressError(new TypeError("fetch failed", { cause: refused }))).toBe(false);
    expect(isBlockedAddressError("ERR_PLANT_STORE_BLOCKED_ADDRESS")).toBe(false);
    expect(isBlockedAddressError(null)).toBe(false);
  });

  it("survives a cause cycle", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(isBlockedAddressError(a)).toBe(false);
    expect(describeError(a)).toBe("a: b");
  });
});

describe("describeError", () => {
  it("joins the messages of the cause chain, skipping repeats", () => {
    const refused = new Error("connect ECONNREFUSED 127.0.0.1:9");
    expect(describeError(new TypeError("fetch failed", { cause: refused }))).toBe(
      "fetch failed: connect ECONNREFUSED 127.0.0.1:9",
    );
    expect(describeError(new Error("boom", { cause: new Error("boom") }))).toBe("boom");
    expect(describeError("plain string")).toBe("plain string");
    expect(describeError(new Error(""))).toBe("Unknown error.");
  });

  it("redacts sensitive strings anywhere in the chain", () => {
    const error = new TypeError("fetch failed", { cause: new Error("header Bearer psk_secret1 rejected") });
    expect(describeError(error, ["psk_secret1"])).toBe("fetch failed: header Bearer [redacted] rejected");
  });
});

describe("redact", () => {
  it("removes every occurrence, longest value first, and ignores empty values", () => {
    expect(redact("whsec_abc and whsec_abcdef and whsec_abc", ["whsec_abc", "whsec_abcdef", ""])).toBe(
      "[redacted] and [redacted] and [redacted]",
    );
    expect(redact("nothing here", [])).toBe("nothing here");
  });
});
