import { describe, expect, it } from "vitest";
import { logText, MAX_LOGGED_CHARS } from "../src/log-text.js";

describe("logText", () => {
  it("keeps short values, bounds long ones and says how much was left out", () => {
    expect(logText("msg_1")).toBe("msg_1");
    expect(logText(undefined)).toBeNull();
    const long = logText("a".repeat(16_000)) as string;
    expect(long.length).toBeLessThan(MAX_LOGGED_CHARS + 40);
    expect(long).toMatch(/…\(15800 more characters\)$/);
    expect(logText(["a", "b"])).toBe("a, b");
  });
});
