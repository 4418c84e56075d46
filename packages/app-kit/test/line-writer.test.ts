import { hostname } from "node:os";
import fc from "fast-check";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createLineWriter, createLogger, type LineValue } from "../src/index.js";

/** A destination keeping every write as it came (pino writes one line per call). */
function recorder() {
  const writes: string[] = [];
  return { writes, stream: { write: (line: string) => void writes.push(line) } };
}

const KEYS = ["webhookId", "eventType", "status", "outcome", "reason", "ms"] as const;
type Values = { [key in (typeof KEYS)[number]]?: LineValue };

const value: fc.Arbitrary<LineValue> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.string({ maxLength: 300 }),
  fc.constantFrom("", '"', "\\", "\u2028", "\u0000", "\u001f", "é", "😀", "a\nb"),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
const values: fc.Arbitrary<Values> = fc.record(
  Object.fromEntries(KEYS.map((key) => [key, value])) as { [key in (typeof KEYS)[number]]: typeof value },
  { requiredKeys: [] },
);

/** Both lines with one time, so they can be compared byte for byte. */
const frozen = (line: string | undefined) => line?.replace(/^(\{"level":\d+,"time":)\d+/, "$10");

describe("createLineWriter", () => {
  it("writes exactly the line pino writes for the same values, for any values", () => {
    const ours = recorder();
    const theirs = recorder();
    const writer = createLineWriter(
      createLogger("plant-store-test", "info", ours.stream),
      "info",
      "webhook",
      KEYS,
    );
    const reference = createLogger("plant-store-test", "info", theirs.stream);
    fc.assert(
      fc.property(values, (input) => {
        ours.writes.length = 0;
        theirs.writes.length = 0;
        writer(input);
        reference.info({ ...input }, "webhook");
        expect(ours.writes).toHaveLength(1);
        expect(frozen(ours.writes[0])).toBe(frozen(theirs.writes[0]));
      }),
      { numRuns: 3000 },
    );
  });

  it("escapes a lone surrogate where pino writes it raw; both lines read back the same", () => {
    const ours = recorder();
    const theirs = recorder();
    const writer = createLineWriter(createLogger("t", "info", ours.stream), "info", "m", ["id"]);
    const reference = createLogger("t", "info", theirs.stream);
    writer({ id: "a\udc00b" });
    reference.info({ id: "a\udc00b" }, "m");
    expect(ours.writes[0]).toContain('"a\\udc00b"');
    const read = (line: string) => {
      const { time: _time, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    };
    expect(read(ours.writes[0] as string)).toEqual(read(theirs.writes[0] as string));
  });

  it("follows the logger's level, also when it changes after the writer was made", () => {
    const { writes, stream } = recorder();
    const logger = createLogger("t", "warn", stream);
    const writer = createLineWriter(logger, "info", "webhook", ["status"]);
    writer({ status: 200 });
    expect(writes).toHaveLength(0);
    logger.level = "debug";
    writer({ status: 201 });
    expect(writes).toHaveLength(1);
    expect(JSON.parse(writes[0] as string)).toMatchObject({ level: 30, status: 201, msg: "webhook" });
    logger.level = "error";
    writer({ status: 202 });
    expect(writes).toHaveLength(1);
    logger.level = "info";
    writer({ status: 203 });
    expect(writes).toHaveLength(2);
  });

  it("follows a logger whose levels compare the other way (levelComparison DESC)", () => {
    const { writes, stream } = recorder();
    const logger = pino(
      {
        customLevels: { low: 100, high: 10 },
        useOnlyCustomLevels: true,
        levelComparison: "DESC",
        level: "low",
      },
      stream,
      // Typed as a plain Logger: the writer takes any pino logger, custom levels included.
    ) as unknown as pino.Logger;
    const writer = createLineWriter(logger, "high" as pino.Level, "m", ["status"]);
    writer({ status: 1 });
    expect(writes).toHaveLength(1);
    logger.level = "high";
    writer({ status: 2 });
    expect(writes).toHaveLength(2);
    const lowWriter = createLineWriter(logger, "low" as pino.Level, "m", ["status"]);
    lowWriter({ status: 3 });
    expect(writes).toHaveLength(2);
  });

  it("follows the parent's level for a child without a level of its own", () => {
    const { writes, stream } = recorder();
    const parent = createLogger("t", "info", stream);
    const writer = createLineWriter(parent.child({ worker: 1 }), "info", "m", ["status"]);
    writer({ status: 1 });
    parent.level = "error";
    writer({ status: 2 });
    parent.level = "info";
    writer({ status: 3 });
    expect(writes.map((line) => JSON.parse(line).status)).toEqual([1, 3]);
  });

  it("writes a child logger's bindings", () => {
    const { writes, stream } = recorder();
    const child = createLogger("t", "info", stream).child({ worker: 2 });
    createLineWriter(child, "info", "webhook", ["status"])({ status: 200 });
    expect(JSON.parse(writes[0] as string)).toMatchObject({ app: "t", worker: 2, status: 200 });
  });

  it("takes pino's own path for a key that is redacted, serialized, or a logger with a mixin or hook", () => {
    const cases: [string, (stream: pino.DestinationStream) => pino.Logger, string][] = [
      ["a redacted key", (stream) => createLogger("t", "info", stream), "token"],
      [
        "a serializer",
        (stream) => pino({ serializers: { status: (v: number) => `status ${v}` } }, stream),
        "status",
      ],
      ["a mixin", (stream) => pino({ mixin: () => ({ extra: 1 }) }, stream), "status"],
      [
        "a log formatter",
        (stream) => pino({ formatters: { log: (o) => ({ ...o, shaped: true }) } }, stream),
        "status",
      ],
      [
        "a streamWrite hook",
        (stream) => pino({ hooks: { streamWrite: (s) => s.replace("200", "299") } }, stream),
        "status",
      ],
      ["a message prefix", (stream) => pino({ msgPrefix: "[p] " }, stream), "status"],
      [
        "a logMethod hook",
        (stream) =>
          pino(
            {
              hooks: {
                logMethod(args, method) {
                  return method.apply(this, [{ ...(args[0] as object), hooked: true }, args[1]] as never);
                },
              },
            },
            stream,
          ),
        "status",
      ],
      ["a nested key", (stream) => pino({ nestedKey: "payload" }, stream), "status"],
      ["a wildcard redaction", (stream) => pino({ redact: ["*"] }, stream), "status"],
    ];
    for (const [name, make, key] of cases) {
      const ours = recorder();
      const theirs = recorder();
      createLineWriter(make(ours.stream), "info", "webhook", [key])({ [key]: 200 });
      make(theirs.stream).info({ [key]: 200 }, "webhook");
      expect(ours.writes.map(frozen), name).toEqual(theirs.writes.map(frozen));
      expect(ours.writes, name).toHaveLength(1);
    }
  });

  it("leaves a multistream's routing to pino: each line reaches the streams of its own level", () => {
    const run = (useWriter: boolean) => {
      const info = recorder();
      const warn = recorder();
      const logger = pino(
        { level: "info" },
        pino.multistream([
          { level: "info", stream: info.stream },
          { level: "warn", stream: warn.stream },
        ]),
      );
      logger.warn("first a warning");
      if (useWriter) createLineWriter(logger, "info", "webhook", ["status"])({ status: 200 });
      else logger.info({ status: 200 }, "webhook");
      return { info: info.writes.map(frozen), warn: warn.writes.map(frozen) };
    };
    const ours = run(true);
    expect(ours).toEqual(run(false));
    expect(ours.warn).toHaveLength(1);
    expect(ours.info).toHaveLength(2);
  });

  it("takes the logger's own method for a logger that is not this pino's (a look-alike, another copy of pino)", () => {
    const calls: unknown[][] = [];
    const lookAlike = { info: (...args: unknown[]) => void calls.push(args) } as unknown as pino.Logger;
    createLineWriter(lookAlike, "info", "attempt", ["status", "ms"])({ status: 200, ms: 1.5 });
    expect(calls).toEqual([[{ status: 200, ms: 1.5 }, "attempt"]]);
    // A pino logger whose symbols are not this copy's: none of the internals the fast path reads are found.
    const out = recorder();
    const real = pino({ level: "info" }, out.stream);
    const foreign = new Proxy(real, {
      get(target, key) {
        if (typeof key === "symbol") return undefined;
        const found = Reflect.get(target, key);
        return typeof found === "function" ? found.bind(target) : found;
      },
    });
    createLineWriter(foreign as unknown as pino.Logger, "info", "attempt", ["status"])({ status: 201 });
    expect(out.writes.map(frozen)).toEqual([
      `{"level":30,"time":0,"pid":${process.pid},"hostname":"${hostname()}","status":201,"msg":"attempt"}\n`,
    ]);
  });
});
