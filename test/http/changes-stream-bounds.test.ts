import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { createDocument } from "../support/http-expect.js";
import { DOCUMENTS, FeedClient, IDLE_HUB, expectStatus, untilWaiting } from "../support/feed-client.js";
import { change, openEventStream, type EventStream } from "../support/event-stream-client.js";
import { buildTestApp } from "../support/test-app.js";

// docs/api.md, "The event stream": what bounds a stream. It counts against
// service.rate-limit.waits-per-address like a long poll, ends at once when the service shuts down,
// and a client that leaves its bytes unread is dropped after 30 s (on the app's ManualClock).

/** How long a test waits for what the service does over real HTTP: polled every 2 ms, up to 5 s. */
const OVER_HTTP = { maxMs: 5_000, pauseMs: 2 };

const t = appPerTest({ config: (config) => (config.rateLimit.waitsPerAddress = 1) });

async function origin(): Promise<string> {
  const address = t.app.server.address();
  return address !== null && typeof address === "object" ? `http://127.0.0.1:${address.port}` : t.app.listen({ host: "127.0.0.1", port: 0 });
}

const events = async (id: string, since: number): Promise<EventStream> => openEventStream(await origin(), `${DOCUMENTS}/${id}/events?since=${since}`);

describe("GET /documents/{documentId}/events under the per-address limit of waits", () => {
  it("refuses a stream beyond waits-per-address with 429 and Retry-After: 1, and takes one again once the first ended", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const first = await events(id, 1);
    expect(await first.next()).toEqual({ comment: "open" });

    const refused = await events(id, 1);
    expect({ status: refused.status, retryAfter: refused.headers["retry-after"], body: JSON.parse(await refused.rest()) as unknown }).toEqual({
      status: 429,
      retryAfter: "1",
      body: {
        type: "urn:folio:problem:rate-limited",
        title: "Too many requests",
        status: 429,
        detail: "more than 1 waiting requests at once from this address; retry in 1 s",
        instance: `${DOCUMENTS}/${id}/events`,
      },
    });
    first.close();
    await first.ended;
    await untilWaiting(t.services.hub, 0, OVER_HTTP);

    const again = await events(id, 1);
    expect({ status: again.status, frame: await again.next() }).toEqual({ status: 200, frame: { comment: "open" } });
    again.close();
  });
});

/** A GET …/events on a socket that never reads: the service's bytes pile up in the kernel's buffers and then its own. */
async function unreadStream(path: string, at?: string): Promise<Socket> {
  const { port } = new URL(at ?? (await origin()));
  const socket = connect({ host: "127.0.0.1", port: Number(port) });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  return socket;
}

describe("GET /documents/{documentId}/events to a client that does not read", () => {
  it("drops the client once it left the stream's bytes unread for 30 s, instead of buffering every answer", async () => {
    const client = new FeedClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const socket = await unreadStream(`${DOCUMENTS}/${id}/events?since=1`);
    await untilWaiting(t.services.hub, 1, OVER_HTTP);

    // 4 MB answers until the stream is stuck and the 30 s pass: the one wait the address may hold is
    // free again once the service dropped the stream. Bounded: at most 12 answers (48 MB).
    const probes: number[] = [];
    let version = 1;
    while (version < 13) {
      expectStatus(await client.put(id, "Plan", String(version % 10).repeat(4_000_000)), 200);
      version++;
      t.clock.advance(30_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const probe = await events(id, version);
      probes.push(probe.status);
      probe.close();
      await probe.ended;
      if (probe.status === 200) break;
    }

    expect(probes.at(-1)).toBe(200);
    expect(probes.slice(0, -1).every((status) => status === 429)).toBe(true);
    // What the socket still gets is what the kernel held: the stream then ends, short of the last
    // version. Its frame may have begun to leave (the frames go straight to the socket), but never
    // whole: a frame counts once its empty line has come, and the last block before the end is cut.
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    await new Promise<void>((resolve) => socket.once("close", () => resolve()).once("error", () => resolve()));
    const text = Buffer.concat(received).toString("utf8");
    expect(text.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true);
    const wholeFrames = text.split("\n\n").slice(0, -1);
    expect(wholeFrames.some((frame) => frame.includes(`\nid: ${version}\n`) || frame.startsWith(`id: ${version}\n`))).toBe(false);
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  }, 60_000);
});

describe("GET /documents/{documentId}/events during shutdown", () => {
  it("ends every open stream at once when the app closes, and leaves no waiter", async () => {
    const app = await buildTestApp();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const other = await createDocument(app.app, { title: "Other", content: "b" });
    const address = await app.app.listen({ host: "127.0.0.1", port: 0 });
    const streams = await Promise.all([
      openEventStream(address, `${DOCUMENTS}/${id}/events?since=0`),
      openEventStream(address, `${DOCUMENTS}/${id}/events?since=1`),
      openEventStream(address, `${DOCUMENTS}/${other.id}/events?since=1`),
    ]);
    const longPoll = await new FeedClient(app.app).changes(id, 0, 0);
    expect(await Promise.all(streams.map((stream) => stream.next()))).toEqual([change(1, longPoll.body), { comment: "open" }, { comment: "open" }]);
    await untilWaiting(app.services.hub, 3, OVER_HTTP);
    const started = performance.now();

    await app.close();

    expect(await Promise.all(streams.map((stream) => stream.rest()))).toEqual(["", "", ""]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });
});

describe("GET /documents/{documentId}/events during shutdown, to a client that does not read", () => {
  it("drops the stream at once instead of waiting for the client to take its bytes", async () => {
    const app = await buildTestApp();
    const client = new FeedClient(app.app);
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const address = await app.app.listen({ host: "127.0.0.1", port: 0 });
    const socket = await unreadStream(`${DOCUMENTS}/${id}/events?since=1`, address);
    await untilWaiting(app.services.hub, 1, OVER_HTTP);
    // 24 MB of answers: more than the kernel's buffers of a loopback connection hold.
    for (let version = 1; version <= 6; version++) expectStatus(await client.put(id, "Plan", String(version).repeat(4_000_000)), 200);
    const started = performance.now();

    try {
      await app.close();
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(app.services.hub.stats()).toEqual(IDLE_HUB);
    } finally {
      socket.destroy();
    }
  }, 60_000);
});
