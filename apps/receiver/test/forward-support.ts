import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createSecret } from "@plant-store/core";
import { Webhook } from "standardwebhooks";
import { SECRET, TOKEN } from "./support.js";

/** One request a service got from the receiver. */
export interface Received {
  at: number;
  id: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** A small service the receiver forwards to: records every request, answers what `answer` says (default 200). */
export interface Service {
  url: string;
  requests: Received[];
  /** The first request of each webhook-id that was answered 2xx. */
  accepted(): Map<string, Received>;
  close(): Promise<void>;
}

/**
 * Starts a service on a loopback port. `answer(request, nth)` gives the status of each request (`nth` counts the
 * requests of its webhook-id from 1).
 */
export async function startService(
  answer: (request: Received, nth: number) => number = () => 200,
): Promise<Service> {
  const requests: Received[] = [];
  const statuses = new Map<Received, number>();
  const seen = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      const received = { at: Date.now(), id, headers: req.headers, body: Buffer.concat(chunks) };
      const nth = (seen.get(id) ?? 0) + 1;
      seen.set(id, nth);
      requests.push(received);
      const status = answer(received, nth);
      statuses.set(received, status);
      res.writeHead(status, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    accepted() {
      const map = new Map<string, Received>();
      for (const r of requests) if ((statuses.get(r) ?? 0) < 300 && !map.has(r.id)) map.set(r.id, r);
      return map;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The secret the forwards are signed with in these tests. */
export const FORWARD_SECRET = createSecret();

/** Sends one New Plant event signed by the official `standardwebhooks` library; returns its id and exact bytes. */
export async function sendSigned(
  receiverUrl: string,
  n: number,
  id = `msg_fwd_${n}_${Math.random().toString(36).slice(2, 8)}`,
): Promise<{ id: string; body: string; status: number }> {
  // Unusual spacing and a non-ASCII name: the forward must carry these exact bytes.
  const body = `{ "id": ${n},"name":"Fougère n°${n}" }`;
  const timestamp = new Date();
  const signature = new Webhook(SECRET).sign(id, timestamp, body);
  const res = await fetch(`${receiverUrl}/plant/webhook`, {
    method: "POST",
    body,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": signature,
    },
  });
  await res.arrayBuffer();
  return { id, body, status: res.status };
}

/**
 * Checks one forwarded request as the service would, with the official library: the destination's secret verifies
 * the signature over the exact bytes and the original webhook-id.
 */
export function verifyForward(received: Received, secret: string): unknown {
  return new Webhook(secret).verify(received.body.toString("utf8"), {
    "webhook-id": String(received.headers["webhook-id"]),
    "webhook-timestamp": String(received.headers["webhook-timestamp"]),
    "webhook-signature": String(received.headers["webhook-signature"]),
  });
}
