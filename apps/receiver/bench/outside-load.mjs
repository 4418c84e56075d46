// The outside harness's load (issue 48), its own uninstrumented process: `total` signed New Plant requests over
// `connections` raw keep-alive TCP sockets, one request in flight per socket, each signed just before it is sent
// with a unique webhook-id. Waits for the port to accept connections first; exits 0 once every request got a 200.
//   node outside-load.mjs <port> <total> <connections> <token> <secret> [prefix]
import { connect } from "node:net";
import { signedRequest } from "./signed-request.mjs";

const [port, total, connections, token, secret, prefix = `msg_${process.pid}_${Date.now()}`] =
  process.argv.slice(2);
const count = Number(total);
const HEAD_END = "\r\n\r\n";

/** The bytes of request `i`: HTTP/1.1, keep-alive, signed now. */
function requestBytes(i) {
  const { body, headers } = signedRequest(i, {
    prefix,
    token,
    secret,
    timestamp: Math.floor(Date.now() / 1000),
  });
  let head = `POST /plant/webhook HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: keep-alive\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(body)}${HEAD_END}${body}`;
}

/**
 * The length of the first complete response in `text` and its status, or null while it is incomplete. Handles a
 * content-length body and a chunked one.
 */
function completeResponse(text) {
  const headEnd = text.indexOf(HEAD_END);
  if (headEnd === -1) return null;
  const head = text.slice(0, headEnd).toLowerCase();
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  if (length) {
    const end = headEnd + HEAD_END.length + Number(length[1]);
    return text.length >= end ? { status, end } : null;
  }
  if (!head.includes("transfer-encoding: chunked")) return { status, end: headEnd + HEAD_END.length };
  const last = text.indexOf("\r\n0\r\n\r\n", headEnd);
  return last === -1 ? null : { status, end: last + 7 };
}

/** Connects, retrying while the server is not listening yet (it starts under valgrind). */
function open() {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: "127.0.0.1", noDelay: true });
    socket.once("connect", () => resolve(socket));
    socket.once("error", (error) => {
      if (error.code !== "ECONNREFUSED") return reject(error);
      setTimeout(() => open().then(resolve, reject), 200);
    });
  });
}

let next = 0;
let resent = 0;

/**
 * A keep-alive connection that answers one request at a time. `send` resolves with the status, or with null when the
 * server closed the connection before answering (its keep-alive timer can fire while the request waits unread).
 */
async function openConnection() {
  const socket = await open();
  socket.setEncoding("latin1");
  let buffered = "";
  let waiting = null;
  socket.on("data", (chunk) => {
    buffered += chunk;
    const response = completeResponse(buffered);
    if (!response || !waiting) return;
    buffered = buffered.slice(response.end);
    const done = waiting;
    waiting = null;
    done(response.status);
  });
  socket.on("error", () => {}); // a reset shows as the close below
  socket.once("close", () => waiting?.(null));
  return {
    socket,
    send: (bytes) =>
      new Promise((resolve) => {
        waiting = resolve;
        if (socket.destroyed) return resolve(null);
        socket.write(bytes);
      }),
  };
}

/** One connection: sends a request, waits for its whole response, sends the next, until all are taken. */
async function connection() {
  let current = await openConnection();
  while (next < count) {
    const i = next++;
    const bytes = requestBytes(i);
    let status = await current.send(bytes);
    // Sent again as a sender would: the server timed the request out (408) or closed the connection unanswered,
    // which a server slowed by valgrind on a busy machine can do while it starts.
    for (let tries = 0; (status === null || status === 408) && tries < 5; tries++) {
      resent++;
      if (status === null) current = await openConnection();
      status = await current.send(requestBytes(i));
    }
    if (status !== 200) throw new Error(`request ${i} answered ${status}`);
  }
  current.socket.end();
}

await Promise.all(Array.from({ length: Number(connections) }, connection));
if (resent > 0)
  process.stderr.write(`outside-load: ${resent} requests sent again (408 or closed unanswered)\n`);
