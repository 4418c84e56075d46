import { styleText } from "node:util";
import { withoutCredentials } from "@plant-store/core";
import { CliError } from "./cli-error.js";

type Color = "green" | "red" | "yellow" | "dim" | "bold" | "cyan";

/**
 * Colours text only when the stream it is written to is a terminal (and never with NO_COLOR).
 *
 * @example
 * ```ts
 * console.log(paint("green", "200 OK"));
 * process.stderr.write(paint("red", "failed", process.stderr));
 * ```
 */
export function paint(color: Color, text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return stream.isTTY === true && !process.env.NO_COLOR ? styleText(color, text) : text;
}

/**
 * Prints one JSON document on stdout.
 *
 * @example
 * ```ts
 * printJson({ status: 200 });
 * ```
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Reads all of stdin, byte for byte.
 *
 * @example
 * ```ts
 * const body = await readStdin();
 * ```
 */
export async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Checks a URL flag: http(s), and no `user:password@` (fetch refuses those, and they must not be echoed).
 * Usage errors (exit 2) name the flag, never the credentials.
 *
 * @example
 * ```ts
 * const base = httpUrl("--sender-url", "http://127.0.0.1:4001");
 * ```
 */
export function httpUrl(flag: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const shown = withoutCredentials(value).slice(0, 200);
    throw new CliError(
      `${flag} '${shown}' is not a URL; give an http(s) URL, e.g. http://127.0.0.1:4000.`,
      2,
    );
  }
  if (url.username || url.password) {
    throw new CliError(
      `${flag} must not contain credentials (user:password@); send the token with its own flag instead.`,
      2,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`${flag} must be an http(s) URL, not ${url.protocol}.`, 2);
  }
  return url;
}

// RFC 6750 §2.1 b64token: the only characters a bearer token can carry in a header.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Checks a bearer-token flag before anything is sent (fetch would reject it and echo it in the error).
 *
 * @example
 * ```ts
 * bearerToken("--token", "psk_…");
 * ```
 */
export function bearerToken(flag: string, value: string): string {
  if (!B64TOKEN.test(value)) {
    throw new CliError(
      `${flag} has characters a bearer token cannot carry (RFC 6750: letters, digits, - . _ ~ + / and trailing =); check for a stray space or newline.`,
      2,
    );
  }
  return value;
}

/**
 * A flag that names a credential, when it is given but empty: `--secret ''` would otherwise mean "no secret" and
 * send unsigned without a word.
 *
 * @example
 * ```ts
 * notEmpty("--secret", ""); // throws CliError (exit 2)
 * ```
 */
export function notEmpty(flag: string, value: string | undefined): string | undefined {
  if (value === "") throw new CliError(`${flag} is empty; give a value, or leave the flag out.`, 2);
  return value;
}

/**
 * The first entry of a comma-separated list variable (the apps' older plural names), or undefined when unset or blank.
 *
 * @example
 * ```ts
 * firstOf("psk_a, psk_b"); // "psk_a"
 * ```
 */
export function firstOf(list: string | undefined): string | undefined {
  return (
    list
      ?.split(",")
      .map((item) => item.trim())
      .find(Boolean) || undefined
  );
}

/**
 * Says why a `fetch` failed in words, and what to try (never the request's headers).
 *
 * @example
 * ```ts
 * fetchFailure(error, 15000, "--timeout"); // "connection refused: nothing listens there (is the receiver running?)"
 * ```
 */
export function fetchFailure(error: unknown, timeoutMs?: number, timeoutFlag?: string): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || (e.name === "AbortError" && timeoutMs !== undefined)) {
    return `no answer within ${timeoutMs} ms${timeoutFlag ? ` (raise ${timeoutFlag})` : ""}`;
  }
  const code = e.cause?.code;
  const message = e.cause?.message ?? e.message;
  switch (code ?? message) {
    case "ECONNREFUSED":
      return "connection refused: nothing listens there (is it running, on that host and port?)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found (check the URL's host name)";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return "the connection was closed before an answer";
    case "bad port":
      return "fetch refuses this port as unsafe (a Fetch-standard 'bad port'); use another port";
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return "no answer in time: the server accepted the connection but did not respond";
  }
  if (typeof code === "string" && /^ERR_(SSL|TLS)_|^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) {
    return code.startsWith("ERR_SSL_WRONG_VERSION")
      ? "the TLS handshake failed: is the URL https:// for a server that speaks plain http (or the reverse)?"
      : `the TLS handshake failed (${code}): check the URL's scheme and the server's certificate`;
  }
  return code ? `${code}: ${message}` : message;
}

/**
 * Whether an answer is a redirect, which no command follows: the webhook (and every admin request) goes to the URL
 * itself, and following a 301/302/303 would turn the POST into a bodyless GET that "succeeds".
 *
 * @example
 * ```ts
 * redirectNote(302, "http://elsewhere/"); // "a redirect to http://elsewhere/, not followed: …"
 * ```
 */
export function redirectNote(status: number, location: string | null): string | null {
  if (status < 300 || status > 399 || status === 304) return null;
  const target = location ? ` to ${withoutCredentials(location).slice(0, 200)}` : "";
  return `a redirect${target}, not followed: send to the final URL itself`;
}

/** The longest `--timeout` any command takes, in ms (10 minutes). */
export const MAX_TIMEOUT_MS = 600_000;

/** A flag's value as a whole number from 1 to `max`, else a usage error (exit 2) naming the flag and the range. */
export function whole(flag: string, value: string, max: number, unit = "", min = 1): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new CliError(`${flag} must be a whole number from ${min} to ${max}${unit}.`, 2);
  }
  return Number(value);
}
