// The peer a user would write with a framework: Fastify doing the same checks as our receiver (peer-checks.mjs).
// Run as a process (run.mjs, callgrind.mjs) it listens and prints its port.
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { createChecks, createStandardChecks } from "./peer-checks.mjs";

/** `verifier`: "standardwebhooks" (the official package's `Webhook#verify`) or "hand" (node:crypto HMAC). */
export function createFastifyPeer(token, secret, verifier = "hand") {
  const check = (verifier === "standardwebhooks" ? createStandardChecks : createChecks)(token, secret);
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.post("/plant/webhook", async (request, reply) => {
    const failed = check(request.headers, request.body);
    if (failed) return reply.code(failed[0]).send({ error: failed[0], message: failed[1] });
    return reply.code(200).send();
  });
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const app = createFastifyPeer(...process.argv.slice(2));
  await app.listen({ port: 0, host: "127.0.0.1" });
  process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
}
