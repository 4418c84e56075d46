import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Starts listening; resolves with the base URL (`http://host:port`, an IPv6 host in brackets).
 *
 * @example
 * ```ts
 * const url = await listen(server, 0, "127.0.0.1"); // "http://127.0.0.1:53211"
 * ```
 */
export function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve(`http://${shown}:${address.port}`);
    });
  });
}

/**
 * Stops accepting and waits for in-flight requests to finish; idle connections close at once, and whatever is still
 * open after `drainTimeoutMs` is cut.
 *
 * @example
 * ```ts
 * await drain(server, 10_000);
 * ```
 */
export async function drain(server: Server, drainTimeoutMs: number): Promise<void> {
  const drained = new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), drainTimeoutMs);
  await drained;
  clearTimeout(timer);
}
