import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlantStoreError } from "./errors.js";
import { createMessageId, createMessageIdGenerator, decodeMessageIdTime, isMessageId } from "./ids.js";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Independent reference: the 128-bit ULID value as a BigInt, written in base 32. */
function referenceUlid(time: number, random: Uint8Array): string {
  let value = BigInt(time);
  for (const byte of random) value = (value << 8n) | BigInt(byte);
  let out = "";
  for (let i = 0; i < 26; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return `msg_${out}`;
}

const bytes = (...values: number[]) => new Uint8Array(values);
const fixed = (value: Uint8Array) => (n: number) => value.slice(0, n);
const MAX_TIME = 2 ** 48 - 1;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PlantStoreError);
    return (error as PlantStoreError).code;
  }
  return undefined;
}

describe("createMessageId", () => {
  it("encodes the ULID spec's timestamp example and the extremes", () => {
    const zeros = new Uint8Array(10);
    const ones = new Uint8Array(10).fill(0xff);
    expect(createMessageId({ now: () => 1469918176385, random: fixed(zeros) })).toBe(
      "msg_01ARYZ6S410000000000000000",
    );
    expect(createMessageId({ now: () => 0, random: fixed(zeros) })).toBe("msg_00000000000000000000000000");
    expect(createMessageId({ now: () => MAX_TIME, random: fixed(ones) })).toBe(
      "msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
    );
  });

  it("matches a BigInt reference encoding for any time and random bytes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_TIME }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (time, random) => {
          const id = createMessageId({ now: () => time, random: fixed(random) });
          expect(id).toBe(referenceUlid(time, random));
          expect(isMessageId(id)).toBe(true);
          expect(decodeMessageIdTime(id)).toBe(time);
        },
      ),
    );
  });

  it("sorts lexicographically by creation time whatever the random part", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_TIME - 1 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (time, gap, first, second) => {
          const later = Math.min(time + gap, MAX_TIME);
          const a = createMessageId({ now: () => time, random: fixed(first) });
          const b = createMessageId({ now: () => later, random: fixed(second) });
          expect(a < b).toBe(true);
        },
      ),
    );
  });

  it("keeps no state between calls and floors fractional clocks", () => {
    const options = { now: () => 1000.9, random: fixed(bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) };
    expect(createMessageId(options)).toBe(createMessageId(options));
    expect(decodeMessageIdTime(createMessageId(options))).toBe(1000);
  });

  it("draws from crypto.getRandomValues by default", () => {
    const ids = new Set(Array.from({ length: 2000 }, () => createMessageId({ now: () => 5 })));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(decodeMessageIdTime(id)).toBe(5);
  });

  it("rejects clocks outside 48 bits and short random sources", () => {
    for (const time of [-1, Number.NaN, Number.POSITIVE_INFINITY, MAX_TIME + 1]) {
      expect(codeOf(() => createMessageId({ now: () => time }))).toBe("invalid_time");
    }
    expect(codeOf(() => createMessageId({ random: () => new Uint8Array(9) }))).toBe("invalid_random");
  });
});

describe("createMessageIdGenerator", () => {
  it("increments the random part within one millisecond instead of drawing again", () => {
    let draws = 0;
    const next = createMessageIdGenerator({
      now: () => 42,
      random: (n) => {
        draws += 1;
        return new Uint8Array(n).fill(0x10);
      },
    });
    const first = next();
    const second = next();
    const third = next();
    expect(draws).toBe(1);
    expect(second).toBe(referenceUlid(42, bytes(16, 16, 16, 16, 16, 16, 16, 16, 16, 17)));
    expect(third).toBe(referenceUlid(42, bytes(16, 16, 16, 16, 16, 16, 16, 16, 16, 18)));
    expect(first < second && second < third).toBe(true);
  });

  it("carries across bytes when incrementing", () => {
    const next = createMessageIdGenerator({
      now: () => 7,
      random: fixed(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff)),
    });
    next();
    expect(next()).toBe(referenceUlid(7, bytes(0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00)));
  });

  it("draws fresh randomness when the millisecond changes", () => {
    let time = 100;
    let seed = 0;
    const next = createMessageIdGenerator({
      now: () => time,
      random: (n) => new Uint8Array(n).fill(++seed),
    });
    next();
    time = 101;
    expect(next()).toBe(referenceUlid(101, new Uint8Array(10).fill(2)));
  });

  it("stays strictly increasing when the clock stands still or steps back", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 200 }), (times) => {
        let i = 0;
        const next = createMessageIdGenerator({ now: () => times[i++ % times.length]! });
        const ids = times.map(() => next());
        const sorted = [...ids].sort();
        expect(ids).toEqual(sorted);
        expect(new Set(ids).size).toBe(ids.length);
      }),
    );
  });

  it("borrows the next millisecond when the random part is exhausted", () => {
    const next = createMessageIdGenerator({ now: () => 9, random: fixed(new Uint8Array(10).fill(0xff)) });
    const last = next();
    const borrowed = next();
    expect(decodeMessageIdTime(last)).toBe(9);
    expect(decodeMessageIdTime(borrowed)).toBe(10);
    expect(last < borrowed).toBe(true);
  });

  it("fails rather than wrap around after the largest timestamp", () => {
    const next = createMessageIdGenerator({
      now: () => MAX_TIME,
      random: fixed(new Uint8Array(10).fill(0xff)),
    });
    next();
    expect(codeOf(next)).toBe("message_id_overflow");
  });
});

describe("decodeMessageIdTime and isMessageId", () => {
  it("reject anything that is not an upper-case 48-bit message id", () => {
    const valid = "msg_01ARYZ6S41TSV4RRFFQ69G5FAV";
    expect(isMessageId(valid)).toBe(true);
    expect(decodeMessageIdTime(valid)).toBe(1469918176385);
    for (const id of [
      "",
      "01ARYZ6S41TSV4RRFFQ69G5FAV",
      "msg_01ARYZ6S41TSV4RRFFQ69G5FA",
      "msg_01ARYZ6S41TSV4RRFFQ69G5FAVX",
      "msg_01aryz6s41tsv4rrffq69g5fav",
      "msg_01ARYZ6S41TSV4RRFFQ69G5FAU",
      "msg_81ARYZ6S41TSV4RRFFQ69G5FAV",
      "evt_01ARYZ6S41TSV4RRFFQ69G5FAV",
    ]) {
      expect(isMessageId(id)).toBe(false);
      expect(codeOf(() => decodeMessageIdTime(id))).toBe("invalid_message_id");
    }
  });
});
