import { describe, expect, it } from "vitest";
import { progressBar } from "./progress.js";

describe("progressBar", () => {
  it("draws on a terminal and writes nothing elsewhere", () => {
    const written: string[] = [];
    const stream = (isTTY: boolean) =>
      ({ isTTY, write: (text: string) => written.push(text) }) as unknown as NodeJS.WriteStream;
    const silent = progressBar(10, stream(false));
    silent.update(5);
    silent.end();
    expect(written).toEqual([]);
    const bar = progressBar(10, stream(true));
    bar.update(5);
    bar.end();
    expect(written).toEqual([`\r[${"#".repeat(15)}${"-".repeat(15)}] 5/10 events`, "\n"]);
  });
});
