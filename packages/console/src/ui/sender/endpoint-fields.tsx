/** A subscription's own fields and endpoint options, as typed in a form (text, parsed when sent). */
export interface EndpointFieldText {
  uid: string;
  description: string;
  /** One `key=value` per line. */
  metadata: string;
  /** Deliveries per second; empty = no limit. */
  rateLimit: string;
  /** One `name: value` per line. */
  headers: string;
}

/** An empty form. */
export const NO_ENDPOINT_FIELDS: EndpointFieldText = {
  uid: "",
  description: "",
  metadata: "",
  rateLimit: "",
  headers: "",
};

/** Lines of `name<sep>value` as an object; a line without a separator is refused in words. */
function pairs(text: string, separator: RegExp, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const at = line.search(separator);
    if (at <= 0) {
      throw new Error(`${what}: each line is ${separator.source === ":" ? "name: value" : "key=value"}.`);
    }
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/**
 * The request fields of a form's text, those typed in; the sender judges the values (a refused header is answered
 * 400, naming it).
 *
 * @example
 * ```ts
 * endpointBody({ ...NO_ENDPOINT_FIELDS, rateLimit: "5", headers: "x-tenant: acme" });
 * // { rateLimit: 5, headers: { "x-tenant": "acme" } }
 * ```
 */
export function endpointBody(text: EndpointFieldText) {
  const rate = text.rateLimit.trim();
  if (rate !== "" && !Number.isFinite(Number(rate))) {
    throw new Error("Rate limit: a number of deliveries per second.");
  }
  return {
    ...(text.uid.trim() !== "" && { uid: text.uid.trim() }),
    ...(text.description !== "" && { description: text.description }),
    ...(text.metadata.trim() !== "" && { metadata: pairs(text.metadata, /=/, "Metadata") }),
    ...(rate !== "" && { rateLimit: Number(rate) }),
    ...(text.headers.trim() !== "" && { headers: pairs(text.headers, /:/, "Headers") }),
  };
}

/**
 * The inputs of a subscription's own fields and endpoint options; ids are prefixed with `prefix` (one form each).
 *
 * @example
 * ```tsx
 * <EndpointFields prefix="new" text={text} onChange={setText} />
 * ```
 */
export function EndpointFields({
  prefix,
  text,
  onChange,
}: {
  prefix: string;
  text: EndpointFieldText;
  onChange: (text: EndpointFieldText) => void;
}) {
  const field = (key: keyof EndpointFieldText) => ({
    id: `${prefix}-${key}`,
    value: text[key],
    onInput: (e: Event) => onChange({ ...text, [key]: (e.target as HTMLInputElement).value }),
  });
  return (
    <>
      <label for={`${prefix}-uid`}>Your id for it (unique in its application)</label>
      <input autocomplete="off" {...field("uid")} />
      <label for={`${prefix}-description`}>Description</label>
      <input autocomplete="off" maxLength={500} {...field("description")} />
      <label for={`${prefix}-metadata`}>Metadata, one key=value per line</label>
      <textarea rows={2} {...field("metadata")} />
      <label for={`${prefix}-rateLimit`}>Rate limit, deliveries per second (empty: none)</label>
      <input type="number" min="0" step="any" inputMode="decimal" {...field("rateLimit")} />
      <label for={`${prefix}-headers`}>Headers added to every delivery, one name: value per line</label>
      <textarea rows={2} autocomplete="off" {...field("headers")} />
    </>
  );
}
