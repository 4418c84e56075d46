// The event stream's resources, measured in-process: a real receiver and SQLite store on real sockets, with the
// store's stream counted (events handed out, live iterators) so the tests can see what the receiver holds.
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { setImmediate as turn } from "node:timers/promises";
import { type InboxEvent, openStore, type Store } from "@plant-store/store";
import { afterEach, describe, expect, it } from "vitest";
import { createReceiver, type Receiver } from "../src/index.js";
import { ADMIN, TOKEN } from "./support.js";

let receiver: Receiver | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await receiver?.close();
  receiver = undefined;
});

/** The real store, with its inbox stream counted: events handed to the receiver, and iterators not yet ended. */
function counted(store: Store) {
  const stats = { pulled: 0, live: 0 };
  const inbox = {
    ...store.inbox,
    async *stream(options?: Parameters<Store["inbox"]["stream"]>[0]): AsyncGenerator<InboxEvent> {
      stats.live++;
      try {
        for await (const event of store.inbox.stream(options)) {
          stats.pulled++;
          yield event;
        }
      } finally {
        stats.live--;
      }
    },
  };
  return { store: { ...store, inbox }, stats };
}

/** A receiver (admin endpoints on) over a counted in-memory store holding `events` events of about 2 KB. */
async function start(events = 0) {
  const real = await openStore(":memory:");
  const pad = "x".repeat(2000);
  await Promise.all(
    Array.from({ length: events }, (_, i) =>
      real.inbox.record({ webhookId: `msg_${i + 1}`, body: JSON.stringify({ id: i + 1, name: pad }) }),
    ),
  );
  const { store, stats } = counted(real);
  receiver = await createReceiver({ tokens: [TOKEN], adminTokens: [ADMIN], store });
  const url = new URL(await receiver.listen());
  const streams: ServerResponse[] = [];
  receiver.server.on("request", (req, res) => {
    if (req.url?.startsWith("/events/stream")) streams.push(res);
  });
  /** Sends `GET /events/stream<query>` on a raw socket of its own. */
  const open = (query = "") => {
    const socket = connect(Number(url.port), url.hostname);
    sockets.push(socket);
    socket.write(
      `GET /events/stream${query} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${ADMIN}\r\n\r\n`,
    );
    return socket;
  };
  return { url, stats, streams, open };
}

/** Turns of the event loop until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await turn();
}

/** Resolves once the stream's opening comment arrived (the socket stays open). */
function preamble(socket: Socket): Promise<void> {
  let text = "";
  socket.setEncoding("utf8");
  return new Promise((resolve) => {
    const onData = (chunk: string) => {
      text += chunk;
      if (!text.includes("retry: 2000")) return;
      socket.off("data", onData);
      resolve();
    };
    socket.on("data", onData);
  });
}

const timeouts = () => process.getActiveResourcesInfo().filter((type) => type === "Timeout").length;

describe("GET /events/stream resources", () => {
  it("releases everything a stream held (store iterator, poll and heartbeat timers) once its client leaves", async () => {
    const { stats, streams, open } = await start();
    const before = timeouts();
    const clients = Array.from({ length: 20 }, () => open());
    await Promise.all(clients.map((socket) => preamble(socket)));
    expect(stats.live).toBe(20);
    expect(timeouts()).toBeGreaterThanOrEqual(before + 20); // at least each stream's heartbeat

    const closed = streams.map((res) => once(res, "close"));
    for (const socket of clients) socket.destroy();
    await Promise.all(closed);
    await turn();
    expect(stats.live).toBe(0);
    expect(timeouts()).toBeLessThanOrEqual(before);
  });

  it("a replay to a client that does not read waits for it instead of reading the whole backlog", async () => {
    const total = 10_000; // ~23 MB of frames, far more than the loopback socket buffers hold
    const { url, stats, streams, open } = await start(total);
    const socket = open("?after=0");
    socket.pause();
    // Wait until the socket is full (the kernel's buffers, then the response's own high-water mark)...
    await until(() => streams[0]?.writableNeedDrain === true);
    const res = streams[0] as ServerResponse;
    // ...and let the event loop run: the receiver answers other requests meanwhile.
    expect((await fetch(new URL("/healthz", url))).status).toBe(200);
    // Bounded: at most the socket's high-water mark plus one frame waits in the process, and the store was
    // read only as far as the socket took (one page of 200 ahead at most), not the whole backlog.
    expect(res.writableLength).toBeLessThan(64 * 1024);
    expect(stats.pulled).toBeLessThan(total);

    // A client that leaves while its stream waits for the socket to drain releases it too.
    const leaving = open("?after=0");
    leaving.pause();
    await until(() => streams[1]?.writableNeedDrain === true);
    expect(stats.live).toBe(2);
    const closed = once(streams[1] as ServerResponse, "close");
    leaving.destroy();
    await closed;
    await turn();
    expect(stats.live).toBe(1);

    // Once the client reads, it gets every event, in order, none twice.
    const ids: number[] = [];
    let rest = "";
    socket.setEncoding("utf8");
    socket.resume();
    for await (const chunk of socket) {
      const frames = (rest + chunk).split("\n\n");
      rest = frames.pop() ?? "";
      for (const frame of frames) {
        const id = /^id: (\d+)$/m.exec(frame)?.[1];
        if (id) ids.push(Number(id));
      }
      if (ids.at(-1) === total) break;
    }
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it("a replay yields to the event loop between pages even when the client keeps up", async () => {
    const { stats, open } = await start(1_000); // ~2.3 MB: the socket would take it all in one go
    open("?after=0").resume();
    await until(() => stats.pulled > 0);
    expect(stats.pulled).toBeLessThan(1_000);
  });
});
