import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { PROBLEM_TYPE, UNKNOWN_ID, createDocument } from "../support/http-expect.js";
import { DOCUMENTS, FeedClient, IDLE_HUB, expectStatus, untilWaiting } from "../support/feed-client.js";
import { change, openEventStream, type EventStream } from "../support/event-stream-client.js";
import { waitUntil } from "../support/wait-until.js";

// docs/api.md, "The event stream": GET …/events answers what the long poll answers for the same
// since, as Server-Sent Events over real HTTP on loopback. The app's clock is a ManualClock, which
// only the tests move: a keep-alive comes when a test moves it 15 s.

/** How long a test waits for what the service does over real HTTP: polled every 2 ms, up to 5 s. */
const OVER_HTTP = { maxMs: 5_000, pauseMs: 2 };

const t = appPerTest();
const sender = { clientId: "client-1", displayName: "Ann" };
const KEEP_ALIVE = { comment: "keep-alive" };
const OPEN = { comment: "open" };

/** The test's app listening on loopback (it starts listening on the first call). */
async function origin(): Promise<string> {
  const address = t.app.server.address();
  return address !== null && typeof address === "object" ? `http://127.0.0.1:${address.port}` : t.app.listen({ host: "127.0.0.1", port: 0 });
}

async function stream(id: string, since: number | string, headers: Record<string, string> = {}): Promise<EventStream> {
  return openEventStream(await origin(), `${DOCUMENTS}/${id}/events?since=${since}`, headers);
}

/** The body of the long poll's 200 for `since` (it answers at once: there is something new). */
async function longPoll(id: string, since: number): Promise<string> {
  const answer = await new FeedClient(t.app).changes(id, since, 0);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.body;
}

function expectStreamHead(events: EventStream): void {
  expect({ status: events.status, type: events.headers["content-type"], cache: events.headers["cache-control"], proxy: events.headers["x-accel-buffering"] }).toEqual({
    status: 200,
    type: "text/event-stream",
    cache: "no-store",
    proxy: "no",
  });
}

describe("GET /documents/{documentId}/events", () => {
  it("sends the long poll's answer for since=0 at once, then each change from its currentVersion on, with the long poll's bytes", async () => {
    const client = new FeedClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await stream(id, 0);

    expectStreamHead(events);
    const first = await events.next();
    expect(first).toEqual(change(1, await longPoll(id, 0)));
    expect(JSON.parse((first as { data: string }).data)).toEqual({ currentVersion: 1, content: "a", events: [{ version: 1, changeType: "CREATED" }] });

    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    expectStatus(await client.patch(id, { baseVersion: 1, base: "a", seq: 1, ...sender, ops: [{ op: "insert", index: 1, lines: ["b"] }] }), 200);
    const second = await events.next();
    expect(second).toEqual(change(2, await longPoll(id, 1)));
    expect(JSON.parse((second as { data: string }).data)).toEqual({
      fromVersion: 1,
      currentVersion: 2,
      ops: [{ op: "insert", index: 1, lines: ["b"] }],
      events: [{ version: 2, changeType: "UPDATED", ...sender }],
    });

    expectStatus(await client.rename(id, "Plan B", 2), 200);
    expect(await events.next()).toEqual(change(3, await longPoll(id, 2)));
    events.close();
    expect(await waitUntil(() => t.services.hub.stats().waiters === 0, OVER_HTTP)).toBe(true);
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("wakes a waiting long poll and a waiting stream at one since with one commit, and both carry the same bytes", async () => {
    const client = new FeedClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await stream(id, 1);
    expect(await events.next()).toEqual(OPEN);
    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    const poll = client.changes(id, 1, 30);
    await untilWaiting(t.services.hub, 2, OVER_HTTP);

    expectStatus(await client.patch(id, { baseVersion: 1, base: "a", seq: 1, ...sender, ops: [{ op: "insert", index: 1, lines: ["b"] }] }), 200);
    const answer = await poll;
    expect(answer.statusCode).toBe(200);
    // Both from one answer of ChangeFeed.next: the long poll's body is the frame's data, byte for byte.
    expect(await events.next()).toEqual(change(2, answer.body));
    events.close();
    expect(await waitUntil(() => t.services.hub.stats().waiters === 0, OVER_HTTP)).toBe(true);
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("opens with a comment when nothing is new, and sends a keep-alive comment after every 15 s without a change", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await stream(id, 1);

    expectStreamHead(events);
    expect(await events.next()).toEqual(OPEN);
    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    t.clock.advance(14_999);
    t.clock.advance(1);
    expect(await events.next()).toEqual(KEEP_ALIVE);
    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    t.clock.advance(15_000);
    expect(await events.next()).toEqual(KEEP_ALIVE);

    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    expectStatus(await new FeedClient(t.app).put(id, "Plan", "b"), 200);
    expect(await events.next()).toEqual(change(2, await longPoll(id, 1)));
    events.close();
  });

  it("sends nothing before 15 s pass: the keep-alive waits for the interval", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await stream(id, 1);
    expect(await events.next()).toEqual(OPEN);
    await untilWaiting(t.services.hub, 1, OVER_HTTP);

    t.clock.advance(14_999);

    await expect(events.next(200)).rejects.toThrow("no frame within 200 ms");
    events.close();
  });

  it("resumes from Last-Event-ID, which takes the place of since", async () => {
    const client = new FeedClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectStatus(await client.put(id, "Plan", "b"), 200);
    expectStatus(await client.put(id, "Plan", "c"), 200);

    const resumed = await stream(id, 0, { "last-event-id": "2" });
    expect(await resumed.next()).toEqual(change(3, await longPoll(id, 2)));
    const current = await stream(id, 1, { "last-event-id": "3" });
    expect(await current.next()).toEqual(OPEN);
    resumed.close();
    current.close();
  });

  it("sends the full text for a since ahead of the document, and goes on from its currentVersion", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a\nb" });
    const events = await stream(id, 5);

    expect(await events.next()).toEqual(change(1, await longPoll(id, 5)));
    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    expectStatus(await new FeedClient(t.app).put(id, "Plan", "a"), 200);
    expect(await events.next()).toEqual(change(2, await longPoll(id, 1)));
    events.close();
  });

  it("delivers DELETED as the feed does and goes on, delivering RESTORED after a restore", async () => {
    const client = new FeedClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await stream(id, 1);
    expect(await events.next()).toEqual(OPEN);
    await untilWaiting(t.services.hub, 1, OVER_HTTP);

    expectStatus(await client.remove(id), 204);
    const deleted = await events.next();
    expect(deleted).toEqual(change(2, await longPoll(id, 1)));
    expect(JSON.parse((deleted as { data: string }).data)).toEqual({ fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "DELETED" }] });
    await untilWaiting(t.services.hub, 1, OVER_HTTP);
    expectStatus(await client.restore(id), 200);
    const restored = await events.next();
    expect(restored).toEqual(change(3, await longPoll(id, 2)));
    expect(JSON.parse((restored as { data: string }).data)).toEqual({ fromVersion: 2, currentVersion: 3, ops: [], events: [{ version: 3, changeType: "RESTORED" }] });
    events.close();
  });

  it("opens a deleted document's stream like the feed answers it: the DELETED event, or a comment once it was seen", async () => {
    const client = new FeedClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectStatus(await client.remove(id), 204);

    const fromStart = await stream(id, 0);
    expect(await fromStart.next()).toEqual(change(2, await longPoll(id, 0)));
    const seen = await stream(id, 2);
    expect(await seen.next()).toEqual(OPEN);
    fromStart.close();
    seen.close();
  });

  it("answers 404 problem+json before any stream byte for a UUID that never existed, and leaves no waiter", async () => {
    const events = await stream(UNKNOWN_ID, 0);

    expect({ status: events.status, type: events.headers["content-type"], body: JSON.parse(await events.rest()) as unknown }).toEqual({
      status: 404,
      type: PROBLEM_TYPE,
      body: { type: "urn:folio:problem:not-found", title: "Not found", status: 404, detail: `no document ${UNKNOWN_ID}`, instance: `${DOCUMENTS}/${UNKNOWN_ID}/events` },
    });
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it.each([
    ["a missing since", "", {}, "querystring.since: must have required property 'since'"],
    ["a negative since", "since=-1", {}, "querystring.since: must be >= 0"],
    ["a Last-Event-ID that is no version", "since=1", { "last-event-id": "abc" }, "headers.last-event-id: must be integer"],
  ])("answers 400 for %s", async (_case, query, headers: Record<string, string>, detail) => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await openEventStream(await origin(), `${DOCUMENTS}/${id}/events?${query}`, headers);

    expect({ status: events.status, body: JSON.parse(await events.rest()) as unknown }).toEqual({
      status: 400,
      body: { type: "urn:folio:problem:invalid-request", title: "Invalid request", status: 400, detail, instance: `${DOCUMENTS}/${id}/events` },
    });
  });
});
