import type { DeliveryTarget } from "./types.js";

// RFC 6750 b64token: anything else cannot be sent in a header, and runtimes echo rejected values in errors.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Checks that a target can be attempted at all: an absolute http(s) URL without credentials and a
 * bearer token of RFC 6750 syntax. Returns the parsed URL, or why the target is unusable — the reason
 * names neither the token nor the URL's credentials.
 *
 * @example
 * ```ts
 * import { checkTarget } from "@plant-store/core";
 * checkTarget({ url: "ftp://example.com/", token: "psk_x", secrets: [] });
 * // { ok: false, reason: "The target URL must use http or https, not ftp:." }
 * ```
 */
export function checkTarget(target: DeliveryTarget): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return { ok: false, reason: "The target URL is not a valid absolute URL." };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `The target URL must use http or https, not ${url.protocol}.` };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "The target URL must not contain credentials; use the token instead." };
  }
  if (typeof target.token !== "string" || !B64TOKEN.test(target.token)) {
    return {
      ok: false,
      reason: "The target token is empty or not a valid bearer token (RFC 6750 b64token characters only).",
    };
  }
  return { ok: true, url };
}
