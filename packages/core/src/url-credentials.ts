/**
 * A URL-ish text with its secrets masked, for texts that are shown, logged or stored (a redirect's `Location` in a
 * delivery error, a flag's value in a CLI message, a span's `url.full`), not for URLs that are used: userinfo
 * becomes `mask` (`http://…@host/`), every query value becomes `mask` with its name kept (`?api_key=…&page=…`: a key
 * in a query is as secret as a password), and a fragment becomes `#` + `mask`. A URL is rebuilt from its parsed
 * parts, so an "@" in a query, path or fragment never passes for the end of a userinfo. A text that is not a URL is
 * masked conservatively: between "//" and the last "@" (a password holding "/" or "@" must not end the masking early),
 * and everything after "//" when a "?" or "#" comes before that "@" (then no one can say where a secret ends).
 *
 * @example
 * ```ts
 * withoutCredentials("http://admin:s3cret@host/x"); // "http://…@host/x"
 * withoutCredentials("https://host/hook?api_key=abc#t"); // "https://host/hook?api_key=…#…"
 * withoutCredentials("https://host/in?sig=ab@cd", "REDACTED"); // "https://host/in?sig=REDACTED"
 * ```
 */
export function withoutCredentials(value: string, mask = "…"): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return unparsableWithoutCredentials(value, mask);
  }
  const { href } = url;
  const authority = url.host !== "" || href.startsWith(`${url.protocol}//`);
  // `search` and `hash` are "" for a bare "?" or "#" too: the href says whether one was there.
  const hashAt = href.indexOf("#");
  const beforeHash = hashAt === -1 ? href : href.slice(0, hashAt);
  return (
    url.protocol +
    (authority ? `//${url.username || url.password ? `${mask}@` : ""}${url.host}` : "") +
    url.pathname +
    (url.search !== "" ? maskQuery(url.search.slice(1), mask) : beforeHash.endsWith("?") ? "?" : "") +
    (url.hash !== "" ? `#${mask}` : hashAt === -1 ? "" : "#")
  );
}

function unparsableWithoutCredentials(value: string, mask: string): string {
  const slashes = value.indexOf("//");
  const at = value.lastIndexOf("@");
  if (slashes === -1 || at < slashes) return maskQueryAndFragment(value, mask);
  if (/[?#]/.test(value.slice(slashes + 2, at))) return `${value.slice(0, slashes + 2)}${mask}`;
  return `${value.slice(0, slashes + 2)}${mask}@${maskQueryAndFragment(value.slice(at + 1), mask)}`;
}

function maskQueryAndFragment(value: string, mask: string): string {
  const start = value.search(/[?#]/);
  if (start === -1) return value;
  const hash = value.indexOf("#", start);
  const query = value[start] === "?" ? value.slice(start + 1, hash === -1 ? undefined : hash) : null;
  const fragment = hash === -1 ? null : value.slice(hash + 1);
  return (
    value.slice(0, start) +
    (query === null ? "" : maskQuery(query, mask)) +
    (fragment === null ? "" : fragment === "" ? "#" : `#${mask}`)
  );
}

function maskQuery(query: string, mask: string): string {
  return `?${query
    .split("&")
    .map((parameter) => {
      const eq = parameter.indexOf("=");
      // A bare value (`?s3cret`) may be the secret itself.
      if (eq === -1) return parameter === "" ? "" : mask;
      return eq === parameter.length - 1 ? parameter : `${parameter.slice(0, eq)}=${mask}`;
    })
    .join("&")}`;
}
