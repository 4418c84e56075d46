/**
 * A URL-ish text with its secrets masked, for texts that are shown, logged or stored (a redirect's `Location` in a
 * delivery error, a flag's value in a CLI message), not for URLs that are used: anything between "//" and the last
 * "@" becomes "…" (that part could be a password, and one holding a "/" or "@" must not end the masking early), every
 * query value becomes "…" with its name kept (`?api_key=…&page=…`: a key in a query is as secret as a password), and
 * a fragment becomes "#…".
 *
 * @example
 * ```ts
 * withoutCredentials("http://admin:s3cr/et@host/x"); // "http://…@host/x"
 * withoutCredentials("https://host/hook?api_key=abc#t"); // "https://host/hook?api_key=…#…"
 * ```
 */
export function withoutCredentials(value: string): string {
  const masked = value.replace(/\/\/.*@/s, "//…@");
  const start = masked.search(/[?#]/);
  if (start === -1) return masked;
  const hash = masked.indexOf("#", start);
  const base = masked.slice(0, start);
  const query = masked[start] === "?" ? masked.slice(start + 1, hash === -1 ? undefined : hash) : null;
  const fragment = hash === -1 ? null : masked.slice(hash + 1);
  return (
    base +
    (query === null ? "" : `?${query.split("&").map(maskParameter).join("&")}`) +
    (fragment === null ? "" : fragment === "" ? "#" : "#…")
  );
}

function maskParameter(parameter: string): string {
  const eq = parameter.indexOf("=");
  if (eq === -1) return parameter === "" ? "" : "…"; // a bare value (`?s3cret`) may be the secret itself
  return eq === parameter.length - 1 ? parameter : `${parameter.slice(0, eq)}=…`;
}
