import { describe, expect, it } from "vitest";
import { ApiError } from "./api-error.js";
import { NewPlant, NewPlantLossless, Plant } from "./plant.js";

const messages = (result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) => result.error?.issues.map((issue) => [issue.path.join("/"), issue.message]);

describe("Plant", () => {
  it("takes a string name (empty too), an optional string tag, and keeps other keys", () => {
    expect(Plant.parse({ name: "", color: "green" })).toEqual({ name: "", color: "green" });
    expect(Plant.parse({ name: "Fern", tag: "shade" })).toEqual({ name: "Fern", tag: "shade" });
    expect(messages(Plant.safeParse({ tag: 1 }))).toEqual([
      ["name", expect.stringContaining("name is missing")],
      ["tag", expect.stringContaining("tag must be a string when present; got the number 1")],
    ]);
    expect(messages(Plant.safeParse([]))).toEqual([
      ["", expect.stringContaining("A plant must be a JSON object")],
    ]);
  });
});

describe("NewPlant (safe)", () => {
  it("takes safe-integer ids only, with messages that say why", () => {
    expect(NewPlant.parse({ id: Number.MAX_SAFE_INTEGER, name: "x" }).id).toBe(Number.MAX_SAFE_INTEGER);
    expect(messages(NewPlant.safeParse({ id: 2 ** 60, name: "x" }))).toEqual([
      ["id", expect.stringMatching(/beyond 2\^53-1.*mode: "lossless"/)],
    ]);
    expect(messages(NewPlant.safeParse({ id: 2 ** 63, name: "x" }))).toEqual([
      ["id", expect.stringContaining("int64")],
    ]);
    expect(messages(NewPlant.safeParse({ id: Number.NaN, name: "x" }))).toEqual([
      ["id", expect.stringContaining("got NaN")],
    ]);
    expect(messages(NewPlant.safeParse({ id: 5n, name: "x" }))).toEqual([
      ["id", expect.stringContaining('mode: "lossless"')],
    ]);
  });
});

describe("NewPlantLossless", () => {
  it("outputs bigint ids from bigints in int64 or safe-integer numbers", () => {
    expect(NewPlantLossless.parse({ id: -(2n ** 63n), name: "x" }).id).toBe(-(2n ** 63n));
    expect(NewPlantLossless.parse({ id: 12, name: "x" }).id).toBe(12n);
  });

  it("refuses numbers that may already be rounded, bigints beyond int64, and non-integers", () => {
    expect(messages(NewPlantLossless.safeParse({ id: 2 ** 60, name: "x" }))).toEqual([
      ["id", expect.stringContaining("Pass it as a bigint")],
    ]);
    expect(messages(NewPlantLossless.safeParse({ id: 2n ** 63n, name: "x" }))).toEqual([
      ["id", expect.stringContaining("outside the int64 range")],
    ]);
    expect(messages(NewPlantLossless.safeParse({ id: 0.5, name: "x" }))).toEqual([
      ["id", expect.stringContaining("must be an integer")],
    ]);
    expect(messages(NewPlantLossless.safeParse({ id: "1", name: "x" }))).toEqual([
      ["id", expect.stringContaining("id must be an integer; got a string")],
    ]);
  });
});

describe("ApiError", () => {
  it("takes an int32 error and a string message, and keeps other keys", () => {
    expect(ApiError.parse({ error: 422, message: "m", detail: [1] })).toEqual({
      error: 422,
      message: "m",
      detail: [1],
    });
    expect(ApiError.safeParse({ error: 2 ** 31 - 1, message: "" }).success).toBe(true);
    expect(ApiError.safeParse({ error: -(2 ** 31), message: "" }).success).toBe(true);
    expect(messages(ApiError.safeParse({ error: 2 ** 31, message: 1 }))).toEqual([
      ["error", expect.stringContaining("int32")],
      ["message", expect.stringContaining("message must be a string")],
    ]);
    expect(messages(ApiError.safeParse({ error: 4.5 }))).toEqual([
      ["error", expect.stringContaining("int32")],
      ["message", expect.stringContaining("message is missing")],
    ]);
  });
});
