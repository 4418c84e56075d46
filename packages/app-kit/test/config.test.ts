import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, csvList, parseConfig, wholeNumber } from "../src/index.js";

const schema = z.object({
  port: wholeNumber("--port / PORT", 0, 65535).default(4000),
  tokens: csvList.pipe(z.array(z.string()).min(1, "set --token")),
  verbose: z.boolean(),
});
const settings = {
  port: { flag: "port", env: "PORT" },
  tokens: { flag: "token", env: "TOKEN", aliases: ["TOKENS"] },
  verbose: { flag: "verbose", env: "VERBOSE", boolean: true },
};
const parse = (argv: string[], env: NodeJS.ProcessEnv = {}, checks?: () => [string, () => unknown][]) =>
  parseConfig({ name: "app", argv, env, settings, schema, ...(checks && { checks }) });

describe("parseConfig", () => {
  it("reads flags, which win over the environment, and boolean variables", () => {
    expect(parse(["--token", "a, b", "--port", "80"], { PORT: "90", VERBOSE: "yes" })).toEqual({
      port: 80,
      tokens: ["a", "b"],
      verbose: true,
    });
    expect(parse([], { TOKEN: "x" })).toEqual({ port: 4000, tokens: ["x"], verbose: false });
  });

  it("reads an older name of a variable when the current one is unset", () => {
    expect(parse([], { TOKENS: "old" })).toMatchObject({ tokens: ["old"] });
    expect(parse([], { TOKEN: "new", TOKENS: "old" })).toMatchObject({ tokens: ["new"] });
  });

  it("answers --help and --version", () => {
    expect(parse(["-h"])).toBe("help");
    expect(parse(["--version"])).toBe("version");
  });

  it("reports every problem at once, and unknown flags with a pointer to --help", () => {
    const error = (() => {
      try {
        parse(["--port", "x"], {});
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toMatch(/--port \/ PORT must be a whole number/);
    expect(error?.message).toMatch(/set --token/);
    expect(() => parse(["--bogus"])).toThrow(/Unknown option '--bogus'. Run app --help/);
  });

  it("names problems by flag and variable, and runs the checks of the values that passed the schema", () => {
    const message = (() => {
      try {
        parse(["--port", "x", "--token", "t"], {}, () => [
          ["--port / PORT", () => {}],
          [
            "--token / TOKEN",
            () => {
              throw new Error("is damaged");
            },
          ],
        ]);
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(message).toMatch(/- --port \/ PORT: --port \/ PORT must be a whole number/);
    expect(message).toMatch(/- --token \/ TOKEN: is damaged/);
  });

  it("refuses a list that is given but blank (a broken template must not turn a check off)", () => {
    expect(() => parse(["--token="])).toThrow(/--token \/ TOKEN: is set but empty/);
    expect(() => parse([], { TOKENS: " , " })).toThrow(/--token \/ TOKEN: is set but empty/);
  });

  it("runs the checks after the schema and collects their messages", () => {
    expect(() =>
      parse(["--token", "t"], {}, () => [
        ["first", () => {}],
        [
          "second",
          () => {
            throw new Error("is damaged");
          },
        ],
      ]),
    ).toThrow(/- second: is damaged/);
  });
});
