import type { FastifyInstance } from "fastify";
import { ApiError } from "../route-table.js";

/** Request bodies: invalid UTF-8 is refused rather than relayed with U+FFFD; a leading BOM is dropped. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Bodies arrive as raw JSON text: `POST /events` must keep the exact bytes (int64 ids are never rounded through
 * `JSON.parse`); any other content type answers 415.
 *
 * @example
 * ```ts
 * installBodyParsers(app);
 * ```
 */
export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => {
    try {
      done(null, strictUtf8.decode(body as Buffer));
    } catch {
      done(new ApiError(400, "The body is not valid UTF-8; JSON must be sent as UTF-8 (RFC 8259 §8.1)."));
    }
  });
  app.addContentTypeParser("*", { parseAs: "string" }, (request, _body, done) =>
    done(new ApiError(415, unacceptedTypeMessage(request.headers["content-type"]))),
  );
}

function unacceptedTypeMessage(contentType: string | undefined): string {
  return contentType
    ? `Content type '${contentType.slice(0, 100)}' is not accepted; send 'Content-Type: application/json'.`
    : "The request has a body but no Content-Type; send 'Content-Type: application/json'.";
}
