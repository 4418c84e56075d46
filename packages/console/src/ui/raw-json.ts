// JSON read without losing digits: int64 ids beyond 2^53 must reach the screen as they were sent, so payloads are
// kept as their raw text (never JSON.parse then JSON.stringify) and only re-indented token by token.

const RAW = Symbol("raw");

/** A parsed JSON object that remembers the exact text of each of its values. */
type Remembering = Record<string, unknown> & { [RAW]?: Record<string, string> };

/**
 * Parses JSON like `JSON.parse`, and remembers for every object the exact source text of each member's value,
 * to be read back with {@link rawOf}.
 *
 * @example
 * ```ts
 * const event = parseKeepingRaw('{"payload":{"id":9007199254740993}}') as object;
 * rawOf(event, "payload"); // '{"id":9007199254740993}'
 * ```
 */
export function parseKeepingRaw(text: string): unknown {
  let i = 0;
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw new SyntaxError(`Not valid JSON at character ${i}.`);
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      const object: Remembering = {};
      const raw: Record<string, string> = {};
      Object.defineProperty(object, RAW, { value: raw, enumerable: false });
      space();
      if (text[i] === "}") {
        i++;
        return object;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail();
        const key = string();
        space();
        if (text[i] !== ":") fail();
        i++;
        space();
        const start = i;
        object[key] = value();
        raw[key] = text.slice(start, i);
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return object;
        } else fail();
      }
    }
    if (c === "[") {
      i++;
      const array: unknown[] = [];
      space();
      if (text[i] === "]") {
        i++;
        return array;
      }
      for (;;) {
        array.push(value());
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return array;
        } else fail();
      }
    }
    if (c === '"') return string();
    const match = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!match) return fail();
    i += match[0].length;
    return JSON.parse(match[0]);
  };
  const result = value();
  space();
  if (i !== text.length) fail();
  return result;
}

/**
 * The exact source text of `object[key]` when `object` came from {@link parseKeepingRaw}.
 *
 * @example
 * ```ts
 * rawOf(parseKeepingRaw('{"a": 1.50}') as object, "a"); // "1.50"
 * ```
 */
export function rawOf(object: unknown, key: string): string | undefined {
  return (object as Remembering | null)?.[RAW]?.[key];
}

/**
 * Re-indents JSON text without parsing its numbers: every token keeps its exact characters.
 *
 * @example
 * ```ts
 * indentJson('{"id":9007199254740993}'); // '{\n  "id": 9007199254740993\n}'
 * ```
 */
export function indentJson(text: string): string {
  let out = "";
  let depth = 0;
  const pad = () => `\n${"  ".repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      out += text.slice(start, i + 1);
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      let j = i + 1;
      while (" \t\n\r".includes(text[j] ?? "")) j++;
      if (text[j] === close) {
        out += c + close;
        i = j;
      } else {
        depth++;
        out += c + pad();
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += pad() + c;
    } else if (c === ",") out += `,${pad()}`;
    else if (c === ":") out += ": ";
    else if (!" \t\n\r".includes(c)) out += c;
  }
  return out;
}
