/**
 * How long an HTTP server of the apps waits for a client, written once for both apps' servers.
 *
 * @module
 */

/**
 * Time allowed to receive a request's headers: a client that sends them slowly (slowloris) is cut after it.
 *
 * @example
 * ```ts
 * createNodeServer(handler, { headersTimeoutMs: HEADERS_TIMEOUT_MS });
 * ```
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * Time allowed for a whole request, body included.
 *
 * @example
 * ```ts
 * createNodeServer(handler, { requestTimeoutMs: REQUEST_TIMEOUT_MS });
 * ```
 */
export const REQUEST_TIMEOUT_MS = 30_000;
