// The peer a user would write with a framework: Fastify doing the same checks as our receiver (peer-checks.mjs).
// Run as a process (run.mjs, callgrind.mjs) it listens and prints its port.
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { createChecks, createStandardChecks, createZodChecks } from "./peer-checks.mjs";

const CHECKS = { hand: createChecks, standardwebhooks: createStandardChecks, zod: createZodChecks };

/**
 * `verifier`: "standardwebhooks" (the official package's `Webhook#verify`, ajv), "zod" (`Webhook#verify`, zod 4) or
 * "hand" (node:crypto HMAC, ajv).
 */
export function createFastifyPeer(token, secret, verifier = "hand") {
  const check = CHECKS[verifier](token, secret);
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.post("/plant/webhook", async (request, reply) => {
    const failed = check(request.headers, request.body);
    if (failed) return reply.code(failed[0]).send({ error: failed[0], message: failed[1] });
    return reply.code(200).send();
  });
  return app;
}

// node fastify-peer.mjs <token> <secret> [verifier] [port]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [token, secret, verifier, port = "0"] = process.argv.slice(2);
  const app = createFastifyPeer(token, secret, verifier);
  await app.listen({ port: Number(port), host: "127.0.0.1" });
  process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
}
