/**
 * Options of {@link bearerChallenge}.
 *
 * @example
 * ```ts
 * const options: BearerChallengeOptions = { error: "invalid_token", description: "The token is not accepted" };
 * ```
 */
export interface BearerChallengeOptions {
  /** Protection space; default `plant-store`. */
  realm?: string | undefined;
  /** RFC 6750 §3.1 error code: `invalid_request` (400) or `invalid_token` (401, a token was presented). */
  error?: "invalid_request" | "invalid_token" | undefined;
  /** Human-readable `error_description`. */
  description?: string | undefined;
}

/**
 * Builds a `WWW-Authenticate` value for the Bearer scheme (RFC 6750 §3). Leave `error` out when the request
 * carried no credentials at all. Values are quoted, with `"` and `\` escaped and anything outside printable
 * ASCII replaced by `?`, so a description can never split or inject a header.
 *
 * @example
 * ```ts
 * bearerChallenge(); // 'Bearer realm="plant-store"'
 * bearerChallenge({ error: "invalid_token", description: "The token expired" });
 * // 'Bearer realm="plant-store", error="invalid_token", error_description="The token expired"'
 * ```
 */
export function bearerChallenge(options: BearerChallengeOptions = {}): string {
  const params = [`realm=${quote(options.realm ?? "plant-store")}`];
  if (options.error) params.push(`error=${quote(options.error)}`);
  if (options.description) params.push(`error_description=${quote(options.description)}`);
  return `Bearer ${params.join(", ")}`;
}

function quote(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "\\$&")}"`;
}
