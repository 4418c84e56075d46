/**
 * Error classes of `@plant-store/core`. Every error has a stable `code`; HTTP errors also know the
 * response they become (`status`, `headers`, `{ error, message }` body).
 *
 * @example
 * ```ts
 * import { HttpError } from "@plant-store/core";
 * const e = new HttpError(413, "payload_too_large", "The body is larger than 1048576 bytes.");
 * e.body(); // { error: 413, message: "The body is larger than 1048576 bytes." }
 * ```
 */
export class PlantStoreError extends Error {
  override name = "PlantStoreError";
  /** A stable, machine-readable code such as `invalid_signature`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The error body of the contract: `{ error: <status>, message }` (`Error` in openapi.yaml). */
export interface ErrorBody {
  error: number;
  message: string;
}

/**
 * An error that maps to one HTTP response of the receiver contract.
 *
 * @example
 * ```ts
 * throw new HttpError(405, "method_not_allowed", "Use POST.", { headers: { allow: "POST" } });
 * ```
 */
export class HttpError extends PlantStoreError {
  override name = "HttpError";
  readonly status: number;
  /** Extra response headers (lower-case names), e.g. `www-authenticate` or `allow`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    options?: { headers?: Record<string, string> | undefined; cause?: unknown },
  ) {
    super(code, message, options);
    this.status = status;
    this.headers = options?.headers ?? {};
  }

  /** The JSON body of the response. */
  body(): ErrorBody {
    return { error: this.status, message: this.message };
  }
}
