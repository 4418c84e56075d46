import { describe, expect, it } from "vitest";
import { covers } from "../src/changesets.mjs";
import { requiredBump } from "../src/required-bump.mjs";

describe("requiredBump", () => {
  it("from 1.0.0 on, maps breaking / minor / patch onto major / minor / patch", () => {
    expect(requiredBump("breaking", "1.0.0")).toBe("major");
    expect(requiredBump("minor", "1.4.2")).toBe("minor");
    expect(requiredBump("patch", "2.0.0")).toBe("patch");
  });

  it("in 0.x, where ^0.y.z accepts only 0.y.*, asks a minor for a break and a patch for the rest", () => {
    expect(requiredBump("breaking", "0.3.1")).toBe("minor");
    expect(requiredBump("minor", "0.3.1")).toBe("patch");
    expect(requiredBump("patch", "0.3.1")).toBe("patch");
  });
});

describe("covers", () => {
  it("accepts a pending bump at least as large as the one needed", () => {
    expect(covers("major", "minor")).toBe(true);
    expect(covers("minor", "minor")).toBe(true);
    expect(covers("minor", "major")).toBe(false);
    expect(covers(undefined, "patch")).toBe(false);
  });
});
