import { isPlainJsonText } from "@plant-store/core";
import pino, { type Level, type Logger } from "pino";

/** A value of a {@link createLineWriter} line: flat, as a request's log line holds them. */
export type LineValue = string | number | boolean | null | undefined;

const {
  chindingsSym,
  endSym,
  formattersSym,
  hooksSym,
  levelValSym,
  lsCacheSym,
  messageKeySym,
  mixinSym,
  needsMetadataGsym,
  nestedKeySym,
  serializersSym,
  streamSym,
  stringifiersSym,
  timeSym,
  wildcardFirstSym,
} = pino.symbols;
// In pino.symbols since pino 8.14, missing from its type declarations.
const msgPrefixSym = (pino.symbols as unknown as Record<string, symbol>).msgPrefixSym as symbol;

type Internals = Record<symbol, unknown>;

/**
 * A writer of one kind of log line — fixed keys, flat values, one message — that writes exactly the line
 * `logger[level](values, msg)` would, without pino's general path: pino looks every key up in its serializers and
 * redaction stringifiers and escapes it on every call; here that is decided once, and a call joins the precomputed
 * parts.
 *
 * Only what cannot change the line is skipped. The fast path is taken when the logger has no `mixin`, no
 * `formatters.log`, no `nestedKey`, no `logMethod`/`streamWrite` hook, no multistream destination, and none of the
 * keys or the message key has a serializer or a redaction path; any other logger gets `logger[level](values, msg)`.
 * Keys are written in `keys` order (pino writes the values object's own order: give them in the same order). The
 * logger's level is read on every call (it can change at run time); pino is asked whether it is enabled only when
 * it changed. A string value is written as `JSON.stringify`
 * writes it: the same bytes as pino's, except that a lone surrogate is escaped (`\udc00`) where pino writes it raw
 * (invalid UTF-8 on the wire).
 *
 * @example
 * ```ts
 * const line = createLineWriter(logger, "info", "webhook", ["webhookId", "status"] as const);
 * line({ webhookId: "msg_1", status: 200 }); // {"level":30,"time":…,"app":"…","webhookId":"msg_1","status":200,"msg":"webhook"}
 * ```
 */
export function createLineWriter<K extends string>(
  logger: Logger,
  level: Level,
  msg: string,
  keys: readonly K[],
): (values: { readonly [key in K]?: LineValue }) => void {
  const general = (values: { readonly [key in K]?: LineValue }) =>
    logger[level](values as Record<string, unknown>, msg);
  const internals = logger as unknown as Internals;
  const serializers = internals[serializersSym] as Record<string, unknown>;
  const stringifiers = internals[stringifiersSym] as Record<string | symbol, unknown>;
  const formatters = internals[formattersSym] as { log?: unknown };
  const hooks = internals[hooksSym] as { logMethod?: unknown; streamWrite?: unknown };
  const stream = internals[streamSym] as pino.DestinationStream & Record<symbol, unknown>;
  const messageKey = internals[messageKeySym] as string;
  const plain = (key: string) => !serializers[key] && !stringifiers[key];
  if (
    // Not this pino's internals (a logger from another copy of pino, or one that only looks like pino's).
    !isObject(serializers) ||
    !isObject(stringifiers) ||
    !isObject(formatters) ||
    !isObject(hooks) ||
    !isObject(stream) ||
    !isObject(logger.levels?.values) ||
    internals[mixinSym] ||
    formatters.log ||
    internals[nestedKeySym] ||
    hooks.logMethod ||
    hooks.streamWrite ||
    typeof internals[msgPrefixSym] === "string" ||
    stream[needsMetadataGsym] === true ||
    stringifiers[wildcardFirstSym as symbol] ||
    !keys.every(plain) ||
    !plain(messageKey) ||
    typeof internals[timeSym] !== "function"
  ) {
    return general;
  }
  const levelValue = logger.levels.values[level] as number;
  const time = internals[timeSym] as () => string;
  const prefixes = keys.map((key) => `,${JSON.stringify(key)}:`);
  const tail = `,${JSON.stringify(messageKey)}:${JSON.stringify(msg)}${internals[endSym] as string}`;
  // Whether the level is enabled, asked again only when the logger's level changed: pino's `isLevelEnabled` is not
  // free, and its answer depends on the logger's level value alone, which every level change writes.
  let checkedLevel: unknown = Number.NaN;
  let enabled = false;
  return (values) => {
    const current = internals[levelValSym];
    if (current !== checkedLevel) {
      checkedLevel = current;
      enabled = logger.isLevelEnabled(level);
    }
    if (!enabled) return;
    // Read per call: a level change rebuilds the cache, a child's bindings are its own.
    let line =
      (internals[lsCacheSym] as Record<number, string>)[levelValue] +
      time() +
      (internals[chindingsSym] as string);
    for (let i = 0; i < keys.length; i++) {
      const value = values[keys[i] as K];
      if (value === undefined) continue;
      line += prefixes[i] + encode(value);
    }
    stream.write(line + tail);
  };
}

/** A flat value as pino writes it: strings as JSON, non-finite numbers as null. */
function encode(value: string | number | boolean | null): string {
  if (typeof value === "string") return quote(value);
  if (typeof value === "number") return Number.isFinite(value) ? `${value}` : "null";
  return `${value}`;
}

/** `JSON.stringify(text)`, with printable ASCII that needs no escape (ids, types, outcomes) quoted directly. */
function quote(text: string): string {
  return isPlainJsonText(text) ? `"${text}"` : JSON.stringify(text);
}

function isObject(value: unknown): value is Record<string | symbol, unknown> {
  return typeof value === "object" && value !== null;
}
