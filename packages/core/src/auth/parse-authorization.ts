import { isB64Token } from "./b64token.js";

/**
 * The outcome of {@link parseAuthorization}; `message` says what is wrong and never contains the token.
 *
 * @example
 * ```ts
 * const parsed: ParsedAuthorization = { ok: false, reason: "missing", message: "No Authorization header. …" };
 * ```
 */
export type ParsedAuthorization =
  | { ok: true; token: string }
  | { ok: false; reason: "missing" | "invalid_request"; message: string };

const USAGE = "Send 'Authorization: Bearer <token>'.";

/**
 * Reads a bearer token from an `Authorization` header (RFC 6750 §2.1). The scheme is case-insensitive and must be
 * followed by one space and exactly one `b64token`. An absent or blank header, or one of another scheme (`Basic …`),
 * carries no bearer token: `missing` (answer 401 with a bare challenge, RFC 6750 §3). A malformed Bearer header is
 * `invalid_request` (answer 400). Never throws.
 *
 * @example
 * ```ts
 * parseAuthorization("Bearer psk_abc");    // { ok: true, token: "psk_abc" }
 * parseAuthorization(undefined);           // { ok: false, reason: "missing", message: "…" }
 * parseAuthorization("Basic dXNlcg==");    // { ok: false, reason: "missing", message: "…" }
 * parseAuthorization("Bearer two tokens"); // { ok: false, reason: "invalid_request", message: "…" }
 * ```
 */
export function parseAuthorization(header: string | null | undefined): ParsedAuthorization {
  // The usual header, `Bearer <token>`, read without trimming or splitting: a b64token holds no space or comma, so
  // this answers only what the full reading below would.
  if (typeof header === "string" && header.startsWith("Bearer ")) {
    const token = header.slice(7);
    if (isB64Token(token)) return { ok: true, token };
  }
  if (typeof header !== "string" || header.trim() === "") {
    return { ok: false, reason: "missing", message: `No Authorization header. ${USAGE}` };
  }
  const trimmed = header.trim();
  const scheme = trimmed.split(/\s/, 1)[0] ?? "";
  // The scheme is not echoed: a client that forgot "Bearer " would have its token there.
  if (scheme.toLowerCase() !== "bearer") {
    return {
      ok: false,
      reason: "missing",
      message: `The Authorization header does not use the Bearer scheme. ${USAGE}`,
    };
  }
  const rest = trimmed.slice(scheme.length);
  if (rest !== "" && !rest.startsWith(" ")) {
    return invalid(`Separate 'Bearer' and the token with one space. ${USAGE}`);
  }
  // A comma cannot be part of a token: two Authorization fields joined (the Fetch API and our node adapters join
  // repeated fields with ", "), or a list where one credential belongs.
  if (rest.includes(",")) {
    return invalid(
      "The request carries more than one Authorization value (two Authorization headers, or a comma-separated list); send exactly one 'Authorization: Bearer <token>'.",
    );
  }
  const credentials = rest.trim() === "" ? [] : rest.trim().split(/ +/);
  const [token] = credentials;
  if (token === undefined) return invalid(`The Authorization header has no token after 'Bearer'. ${USAGE}`);
  if (credentials.length > 1) {
    return invalid(
      `The Authorization header has more than one value after 'Bearer'; send exactly one token.`,
    );
  }
  if (!isB64Token(token)) {
    return invalid(
      "The bearer token has characters RFC 6750 does not allow (only letters, digits, - . _ ~ + / and trailing =). Check for quotes, commas or line breaks around it.",
    );
  }
  return { ok: true, token };
}

function invalid(message: string): ParsedAuthorization {
  return { ok: false, reason: "invalid_request", message };
}
