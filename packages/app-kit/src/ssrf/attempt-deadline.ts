import { EventEmitter } from "node:events";

/**
 * An attempt's deadline as an EventEmitter, which undici accepts as a signal (it reads `reason` and listens for
 * `abort`): lighter than an AbortController with its timer.
 */
export type Deadline = EventEmitter & { reason?: Error };

/**
 * A deadline that fires after `timeoutMs` with a `TimeoutError`; `clear` stops its timer once the attempt is over.
 *
 * @example
 * ```ts
 * const { deadline, clear } = startDeadline(15_000);
 * ```
 */
export function startDeadline(timeoutMs: number): { deadline: Deadline; clear: () => void } {
  const deadline = new EventEmitter() as Deadline;
  const timer = setTimeout(() => {
    deadline.reason = Object.assign(new Error(`timed out after ${timeoutMs} ms`), { name: "TimeoutError" });
    deadline.emit("abort");
  }, timeoutMs);
  return { deadline, clear: () => clearTimeout(timer) };
}

/**
 * `work`, or the deadline's reason if it fires first (the work itself cannot be cancelled: it is left to finish).
 *
 * @example
 * ```ts
 * const verdict = await beforeDeadline(resolveTarget(url, allow, resolve), deadline);
 * ```
 */
export function beforeDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  if (deadline.reason) return Promise.reject(deadline.reason);
  return new Promise<T>((resolve, reject) => {
    const expire = () => reject(deadline.reason);
    deadline.once("abort", expire);
    work.then(
      (value) => {
        deadline.off("abort", expire);
        resolve(value);
      },
      (error: unknown) => {
        deadline.off("abort", expire);
        reject(error);
      },
    );
  });
}
