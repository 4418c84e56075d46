import { bearerChallenge } from "./bearer-challenge.js";
import { parseAuthorization } from "./parse-authorization.js";
import { type TokenVerifier, verifyNowOf } from "./token-verifier.js";

/** Options of {@link createBearerCheck}. */
export interface BearerCheckOptions {
  /** Accepted tokens. */
  verifier: TokenVerifier;
  /** Protection space named in every challenge, e.g. `plant-store-admin`. */
  realm: string;
  /** The 401 message when no bearer token was sent. */
  missing: string;
  /** The 401 message when the token is not accepted. */
  rejected: string;
}

/** The outcome of a bearer check: pass, or the refusal to answer (status, message, `WWW-Authenticate`). */
export type BearerCheck =
  | { readonly ok: true }
  | { readonly ok: false; status: 400 | 401; message: string; headers: { "www-authenticate": string } };

const PASSED: BearerCheck = Object.freeze({ ok: true });

/**
 * One bearer-token check (RFC 6750) for every endpoint that takes a token: no bearer token → 401 with a bare
 * challenge; a malformed `Authorization` → 400 with `error="invalid_request"`; a token not accepted → 401 with
 * `error="invalid_token"`. The challenges and the two 401 answers are built once; the 400's is built when it
 * happens. Messages never contain the token. The outcome comes back as is when the verifier decides synchronously
 * (the built-in verifier on Node), as a promise otherwise: `await` it either way.
 *
 * @example
 * ```ts
 * const check = createBearerCheck({ verifier: createTokenVerifier(["sha256:…"]), realm: "plant-store-admin",
 *   missing: "Missing admin bearer token.", rejected: "The admin token is not accepted." });
 * const outcome = await check(request.headers.authorization);
 * if (!outcome.ok) return errorResponse(outcome.status, outcome.message, outcome.headers);
 * ```
 */
export function createBearerCheck(
  options: BearerCheckOptions,
): (header: string | null | undefined) => BearerCheck | Promise<BearerCheck> {
  const { verifier, missing, rejected } = options;
  const bare = { "www-authenticate": bearerChallenge({ realm: options.realm }) };
  const invalidRequest = {
    "www-authenticate": bearerChallenge({ realm: options.realm, error: "invalid_request" }),
  };
  const invalidToken = {
    "www-authenticate": bearerChallenge({ realm: options.realm, error: "invalid_token" }),
  };
  const failed = (status: 400 | 401, message: string, headers: { "www-authenticate": string }) =>
    Object.freeze({ ok: false, status, message, headers }) as BearerCheck;
  const missingToken = failed(401, missing, bare);
  const rejectedToken = failed(401, rejected, invalidToken);
  const judge = (accepted: boolean) => (accepted ? PASSED : rejectedToken);
  return (header) => {
    const auth = parseAuthorization(header);
    if (!auth.ok) {
      if (auth.reason === "missing") return missingToken;
      return failed(400, `Malformed Authorization header: ${auth.message}`, invalidRequest);
    }
    const now = verifyNowOf(verifier);
    const accepted = now ? now(auth.token) : verifier.verify(auth.token);
    // A verifier's own thenable becomes a native promise: callers tell a pending verdict by `instanceof Promise`.
    return typeof accepted === "boolean" ? judge(accepted) : Promise.resolve(accepted).then(judge);
  };
}
