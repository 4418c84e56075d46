import { PlantStoreError } from "./errors.js";

/** Crockford base32, as ULID uses it: no I, L, O, U. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const PREFIX = "msg_";
const TIME_CHARS = 10;
const RANDOM_BYTES = 10;
const MAX_TIME = 2 ** 48 - 1;
// The first character carries only 3 of the 50 bits of 10 characters, hence 0-7.
const MESSAGE_ID = /^msg_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** Injectable sources of {@link createMessageIdGenerator} and {@link createMessageId}. */
export interface MessageIdOptions {
  /** Clock in milliseconds since the epoch. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** Returns `n` random bytes. Default `crypto.getRandomValues`. */
  random?: ((n: number) => Uint8Array) | undefined;
}

/**
 * Creates a message id generator. Ids are `msg_` + 26 Crockford base32 characters in the ULID layout
 * (48-bit millisecond timestamp, then 80 random bits), so they sort lexicographically by creation time.
 * Ids from the same generator are strictly increasing: within one millisecond (or when the clock steps
 * back) the previous random part is incremented instead of drawn again.
 *
 * @example
 * ```ts
 * import { createMessageIdGenerator } from "@plant-store/core";
 * const nextId = createMessageIdGenerator();
 * const a = nextId(); // "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB"
 * const b = nextId();
 * a < b; // true, even within the same millisecond
 * ```
 */
export function createMessageIdGenerator(options: MessageIdOptions = {}): () => string {
  const now = options.now ?? Date.now;
  const random = options.random ?? defaultRandom;
  let lastTime = -1;
  let lastRandom: Uint8Array = new Uint8Array(RANDOM_BYTES);

  return () => {
    const time = checkTime(now());
    if (time > lastTime) {
      lastTime = time;
      lastRandom = draw(random);
    } else if (!increment(lastRandom)) {
      // 2^80 ids in one millisecond cannot happen with a fair source; borrowing the next millisecond
      // keeps the order strict instead of failing a publish.
      if (lastTime === MAX_TIME) {
        throw new PlantStoreError(
          "message_id_overflow",
          "No message id is left after the largest timestamp.",
        );
      }
      lastTime += 1;
      lastRandom = draw(random);
    }
    return PREFIX + encodeTime(lastTime) + encodeRandom(lastRandom);
  };
}

/**
 * Creates one message id (`msg_` + ULID layout) that sorts by creation time. Each call is independent
 * (core keeps no module state); use {@link createMessageIdGenerator} when several ids made in the same
 * millisecond must keep their creation order.
 *
 * @example
 * ```ts
 * import { createMessageId } from "@plant-store/core";
 * createMessageId(); // "msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB"
 * createMessageId({ now: () => 0, random: (n) => new Uint8Array(n) }); // "msg_00000000000000000000000000"
 * ```
 */
export function createMessageId(options: MessageIdOptions = {}): string {
  return createMessageIdGenerator(options)();
}

/**
 * Whether `value` is a well-formed message id: `msg_`, then 26 upper-case Crockford base32 characters
 * whose timestamp fits 48 bits.
 *
 * @example
 * ```ts
 * import { isMessageId } from "@plant-store/core";
 * isMessageId("msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB"); // true
 * isMessageId("msg_01jd3y6q8zk7t0v4wq2c9rx5mb"); // false: ids are compared byte for byte
 * ```
 */
export function isMessageId(value: string): boolean {
  return MESSAGE_ID.test(value);
}

/**
 * The creation time (milliseconds since the epoch) encoded in a message id.
 * Throws `PlantStoreError` with code `invalid_message_id` when `id` is not a message id.
 *
 * @example
 * ```ts
 * import { decodeMessageIdTime } from "@plant-store/core";
 * new Date(decodeMessageIdTime("msg_01JD3Y6Q8ZK7T0V4WQ2C9RX5MB")).toISOString(); // "2024-11-20T04:45:03.135Z"
 * ```
 */
export function decodeMessageIdTime(id: string): number {
  if (!isMessageId(id)) {
    throw new PlantStoreError(
      "invalid_message_id",
      'Not a message id: expected "msg_" followed by 26 upper-case Crockford base32 characters.',
    );
  }
  let time = 0;
  for (const char of id.slice(PREFIX.length, PREFIX.length + TIME_CHARS)) {
    time = time * 32 + ALPHABET.indexOf(char);
  }
  return time;
}

function defaultRandom(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

function checkTime(time: number): number {
  if (!Number.isFinite(time) || time < 0 || time > MAX_TIME) {
    throw new PlantStoreError(
      "invalid_time",
      `The clock returned ${time}; message ids need milliseconds between 0 and 2^48 - 1.`,
    );
  }
  return Math.floor(time);
}

function draw(random: (n: number) => Uint8Array): Uint8Array {
  const bytes = random(RANDOM_BYTES);
  if (!(bytes instanceof Uint8Array) || bytes.length < RANDOM_BYTES) {
    throw new PlantStoreError("invalid_random", `The random source must return ${RANDOM_BYTES} bytes.`);
  }
  return bytes.slice(0, RANDOM_BYTES);
}

/** Adds one to the big-endian bytes in place; false when they wrapped around to zero. */
function increment(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const value = (bytes[i] ?? 0) + 1;
    bytes[i] = value & 0xff;
    if (value <= 0xff) return true;
  }
  return false;
}

function encodeTime(time: number): string {
  let out = "";
  let rest = time;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** 80 bits → 16 characters, 5 bits each, most significant first. */
function encodeRandom(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}
