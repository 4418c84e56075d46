// The peer a user would write with a framework: Fastify doing the same checks as our receiver (peer-checks.mjs).
// Run as a process (run.mjs) it listens and prints its port; instructions.mjs imports `createFastifyPeer`.
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { createChecks } from "./peer-checks.mjs";

export function createFastifyPeer(token, secret) {
  const check = createChecks(token, secret);
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
