/**
 * A check that a `Content-Type` is JSON in UTF-8 (`application/json`, with no charset or `utf-8`), one per handler:
 * senders repeat the same value on every request, so the last accepted one is kept and skips the parse (a pure
 * function's verdict, so keeping it is safe).
 *
 * @example
 * ```ts
 * const isJson = createJsonContentTypeCheck();
 * isJson("application/json; charset=utf-8"); // true
 * isJson("text/plain"); // false
 * ```
 */
export function createJsonContentTypeCheck(): (value: string | null | undefined) => boolean {
  let lastAccepted = "application/json";
  return (value) => {
    if (!value) return false;
    if (value === lastAccepted) return true;
    if (!isJsonContentType(value)) return false;
    lastAccepted = value;
    return true;
  };
}

function isJsonContentType(value: string): boolean {
  const [type, ...params] = value.split(";");
  if (type?.trim().toLowerCase() !== "application/json") return false;
  for (const param of params) {
    const [key, raw] = param.split("=");
    if (key?.trim().toLowerCase() === "charset") {
      const charset = raw?.trim().replace(/^"|"$/g, "").toLowerCase();
      if (charset !== "utf-8" && charset !== "utf8") return false;
    }
  }
  return true;
}
