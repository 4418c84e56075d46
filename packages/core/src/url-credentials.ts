/**
 * A URL-ish text with anything between "//" and the last "@" replaced by "…": that part could be a password, and one
 * holding a "/" or "@" must not end the masking early. For texts that are shown or stored (a redirect's `Location`
 * in a delivery error, a flag's value in a CLI message), not for URLs that are used.
 *
 * @example
 * ```ts
 * withoutCredentials("http://admin:s3cr/et@host/x"); // "http://…@host/x"
 * ```
 */
export function withoutCredentials(value: string): string {
  return value.replace(/\/\/.*@/s, "//…@");
}
