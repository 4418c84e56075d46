import { describe, expect, it } from "vitest";
import { createKept } from "./kept.js";

describe("createKept", () => {
  it("keeps at most max entries, dropping the least recently used (a get counts as a use)", () => {
    const kept = createKept<number>(3);
    expect(kept.set("a", 1)).toBe(1);
    kept.set("b", 2);
    kept.set("c", 3);
    expect(kept.get("a")).toBe(1); // now b is the least recently used
    kept.set("d", 4);
    expect(kept.size).toBe(3);
    expect(kept.get("b")).toBeUndefined();
    expect([kept.get("a"), kept.get("c"), kept.get("d")]).toEqual([1, 3, 4]);
  });

  it("replaces the value of a key it holds without dropping another", () => {
    const kept = createKept<number>(2);
    kept.set("a", 1);
    kept.set("b", 2);
    kept.set("a", 10);
    expect(kept.size).toBe(2);
    expect([kept.get("a"), kept.get("b")]).toEqual([10, 2]);
  });
});
