import { createKept } from "../kept.js";
import type { DeliveryTarget } from "./types.js";

// RFC 6750 b64token: anything else cannot be sent in a header, and runtimes echo rejected values in errors.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** How many target URLs {@link checkTarget} keeps the verdict of. */
export const TARGET_URLS_KEPT = 1024;
// A usable URL's href, by the URL text: every attempt to a subscription checks the same URL again.
const usableUrls = createKept<string>(TARGET_URLS_KEPT);

/**
 * Checks that a target can be attempted at all: an absolute http(s) URL without credentials and a bearer token of
 * RFC 6750 syntax. Returns the URL's normalised `href`, or why the target is unusable (the reason names neither the
 * token nor the URL's credentials). A usable URL's verdict is kept for the next call with the same URL text (at most
 * {@link TARGET_URLS_KEPT}, the least recently used dropped first); an unusable one is judged again every time, and
 * the token is checked on every call.
 *
 * @example
 * ```ts
 * import { checkTarget } from "@plant-store/core";
 * checkTarget({ url: "ftp://example.com/", token: "psk_x", secrets: [] });
 * // { ok: false, reason: "The target URL must use http or https, not ftp:." }
 * checkTarget({ url: "https://a.example", token: "psk_x", secrets: [] }); // { ok: true, href: "https://a.example/" }
 * ```
 */
export function checkTarget(
  target: DeliveryTarget,
): { ok: true; href: string } | { ok: false; reason: string } {
  const raw = target.url;
  let href = typeof raw === "string" ? usableUrls.get(raw) : undefined;
  if (href === undefined) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: INVALID_URL };
    }
    const problem = urlProblem(url);
    if (problem !== undefined) return { ok: false, reason: problem };
    href = typeof raw === "string" ? usableUrls.set(raw, url.href) : url.href;
  }
  const problem =
    target.token === null || target.token === undefined ? undefined : tokenProblem(target.token);
  return problem === undefined ? { ok: true, href } : { ok: false, reason: problem };
}

const INVALID_URL = "The target URL is not a valid absolute URL.";

function urlProblem(url: URL): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `The target URL must use http or https, not ${url.protocol}.`;
  }
  if (url.username !== "" || url.password !== "") {
    return "The target URL must not contain credentials; use the token instead.";
  }
  return undefined;
}

function tokenProblem(token: unknown): string | undefined {
  return typeof token === "string" && B64TOKEN.test(token)
    ? undefined
    : "The target token is empty or not a valid bearer token (RFC 6750 b64token characters only).";
}
