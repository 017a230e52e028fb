import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { PROBLEM_TYPE, createDocument } from "../support/http-expect.js";
import { FeedClient, IDLE_HUB, expectStatus, untilWaiting } from "../support/feed-client.js";
import { change, openEventStream, type EventStream, type Frame } from "../support/event-stream-client.js";
import { READ, ReadLinkClient } from "../support/read-link-client.js";
import { waitUntil } from "../support/wait-until.js";

// docs/sharing.md and docs/api.md, "The event stream": GET /read/{readId}/events is the document's
// own stream, frame for frame, never with the document's id; a link revoked or replaced meanwhile
// ends it. Runs on SQLite and (project "postgres") on PostgreSQL.

/** How long a test waits for what the service does over real HTTP: polled every 2 ms, up to 5 s. */
const OVER_HTTP = { maxMs: 5_000, pauseMs: 2 };

const t = appPerTest();
const appendB = { baseVersion: 1, base: "a", seq: 1, clientId: "c-ann", displayName: "Ann", ops: [{ op: "insert" as const, index: 1, lines: ["b"] }] };

async function origin(): Promise<string> {
  const address = t.app.server.address();
  return address !== null && typeof address === "object" ? `http://127.0.0.1:${address.port}` : t.app.listen({ host: "127.0.0.1", port: 0 });
}

/** A document ("a", version 1) with a read link, and a stream through that link from `since`. */
async function linked(since: number): Promise<{ docs: FeedClient; links: ReadLinkClient; id: string; readId: string; events: EventStream }> {
  const docs = new FeedClient(t.app);
  const links = new ReadLinkClient(t.app);
  const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
  const readId = await links.newReadId(id);
  const events = await openEventStream(await origin(), `${READ}/${readId}/events?since=${since}`);
  return { docs, links, id, readId, events };
}

/** The read long poll's body for `since`, which is also the document's own (test/http/read-links-feed.test.ts). */
async function readPoll(links: ReadLinkClient, readId: string, since: number): Promise<string> {
  const answer = await links.changes(readId, since, 0);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.body;
}

describe("GET /read/{readId}/events", () => {
  it("sends what the document's own stream sends, and never the document's id in any byte", async () => {
    const { docs, links, id, readId, events } = await linked(0);
    const own = await openEventStream(await origin(), `/api/v1/documents/${id}/events?since=0`);

    const frames: Frame[] = [await events.next()];
    expect(frames[0]).toEqual(change(1, await readPoll(links, readId, 0)));
    expect(await own.next()).toEqual(frames[0]);
    await untilWaiting(t.services.hub, 2, OVER_HTTP);
    expectStatus(await docs.patch(id, appendB), 200);
    frames.push(await events.next());
    expect(frames[1]).toEqual(change(2, await readPoll(links, readId, 1)));
    expect(await own.next()).toEqual(frames[1]);

    expect(JSON.stringify({ frames, headers: events.headers }).includes(id)).toBe(false);
    events.close();
    own.close();
    expect(await waitUntil(() => t.services.hub.stats().waiters === 0, OVER_HTTP)).toBe(true);
  });

  it("answers 404 problem+json before any stream byte for a read id that names no link", async () => {
    const readId = "0d3c6f1e-58a2-4b7d-9e41-7a2f5c8b6d90";
    const events = await openEventStream(await origin(), `${READ}/${readId}/events?since=0`);

    expect({ status: events.status, type: events.headers["content-type"], body: JSON.parse(await events.rest()) as unknown }).toEqual({
      status: 404,
      type: PROBLEM_TYPE,
      body: { type: "urn:folio:problem:not-found", title: "Not found", status: 404, detail: `no read link ${readId}`, instance: `${READ}/${readId}/events` },
    });
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("ends the stream, without delivering it, at the first change after the link was revoked", async () => {
    const { docs, links, id, events } = await linked(1);
    expect(await events.next()).toEqual({ comment: "open" });
    await untilWaiting(t.services.hub, 1, OVER_HTTP);

    expectStatus(await links.revoke(id), 204);
    expectStatus(await docs.patch(id, appendB), 200);

    expect(await events.rest()).toBe("");
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("ends the stream at the keep-alive after the link was replaced by a new one, when nothing changed", async () => {
    const { links, id, events } = await linked(1);
    expect(await events.next()).toEqual({ comment: "open" });
    await untilWaiting(t.services.hub, 1, OVER_HTTP);

    await links.newReadId(id);
    t.clock.advance(15_000);

    expect(await events.next()).toEqual({ comment: "keep-alive" });
    expect(await events.rest()).toBe("");
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("delivers a deleted document's DELETED through the link and goes on, as the read long poll does", async () => {
    const { docs, links, id, readId, events } = await linked(1);
    expect(await events.next()).toEqual({ comment: "open" });
    await untilWaiting(t.services.hub, 1, OVER_HTTP);

    expectStatus(await docs.remove(id), 204);
    expect(await events.next()).toEqual(change(2, await readPoll(links, readId, 1)));
    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    expectStatus(await docs.restore(id), 200);
    expect(await events.next()).toEqual(change(3, await readPoll(links, readId, 2)));
    events.close();
  });
});
