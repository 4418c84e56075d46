import type { FastifyReply } from "fastify";

/**
 * Answers with the contract's error body, `{ error: <status>, message }`.
 *
 * @example
 * ```ts
 * return sendError(reply, 404, "No subscription sub_x.");
 * ```
 */
export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  problems?: readonly unknown[],
): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "application/json; charset=utf-8")
    .send(problems ? { error: status, message, problems } : { error: status, message });
}
