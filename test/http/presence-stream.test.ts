import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { createDocument } from "../support/http-expect.js";
import { DOCUMENTS, expectNoContent } from "../support/feed-client.js";
import { change, openEventStream, presenceFrame, type EventStream } from "../support/event-stream-client.js";
import { PresenceClient } from "../support/presence-client.js";
import { READ, ReadLinkClient } from "../support/read-link-client.js";
import { waitUntil } from "../support/wait-until.js";

// docs/api.md, "Presence": the event streams carry `event: presence` with GET …/presence's body,
// at most 10 a second per document, over real HTTP on loopback. The app's clock is a ManualClock:
// the interval and the expiry pass only when a test moves it (the keep-alive, at 15 s, never comes).

const OVER_HTTP = { maxMs: 5_000, pauseMs: 2 };
const OPEN = { comment: "open" };
const t = appPerTest({ config: (config) => void (config.presence.ttlSeconds = 5) });

async function origin(): Promise<string> {
  const address = t.app.server.address();
  return address !== null && typeof address === "object" ? `http://127.0.0.1:${address.port}` : t.app.listen({ host: "127.0.0.1", port: 0 });
}

/** The body GET …/presence answers now: what a presence frame must carry. */
async function listBody(id: string): Promise<string> {
  const answer = await new PresenceClient(t.app).list(id);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.body;
}

/** Opens the stream at `path`, takes its first frame, and waits until it listens to presence. */
async function listening(path: string, first: unknown = OPEN): Promise<EventStream> {
  const watched = t.services.presence.watchedDocuments;
  const events = await openEventStream(await origin(), path);
  expect(await events.next()).toEqual(first);
  expect(await waitUntil(() => t.services.presence.watchedDocuments > watched, OVER_HTTP)).toBe(true);
  return events;
}

describe("event: presence on GET /documents/{documentId}/events", () => {
  it("sends the list at once after a quiet spell, then coalesces the changes of the next 100 ms into one frame", async () => {
    const presence = new PresenceClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await listening(`${DOCUMENTS}/${id}/events?since=1`);

    expectNoContent(await presence.set(id, "c-ann", { displayName: "Ann", state: { at: 1 } }));
    const first = await events.next();
    expect(first).toEqual(presenceFrame(await listBody(id)));
    expect(JSON.parse((first as { data: string }).data)).toEqual({ clients: [{ clientId: "c-ann", displayName: "Ann", role: "editor", state: { at: 1 }, updatedAt: "2026-01-05T10:00:00.000Z" }] });

    t.clock.advance(50);
    expectNoContent(await presence.set(id, "c-bo", { state: {} }));
    expectNoContent(await presence.set(id, "c-ann", { state: { at: 2 } }));
    await expect(events.next(200)).rejects.toThrow("no frame within 200 ms");
    t.clock.advance(49);
    await expect(events.next(100)).rejects.toThrow("no frame within 100 ms");
    t.clock.advance(1);
    expect(await events.next()).toEqual(presenceFrame(await listBody(id)));
    await expect(events.next(200)).rejects.toThrow("no frame within 200 ms");

    t.clock.advance(100);
    expectNoContent(await presence.remove(id, "c-bo"));
    expect(await events.next()).toEqual(presenceFrame(await listBody(id)));
    events.close();
    expect(await waitUntil(() => t.services.presence.watchedDocuments === 0, OVER_HTTP)).toBe(true);
  });

  it("sends who is there when the stream opens, and an empty list when the last entry expires without a request", async () => {
    const presence = new PresenceClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectNoContent(await presence.set(id, "c-ann", { state: {} }));
    const body = await listBody(id);
    const events = await openEventStream(await origin(), `${DOCUMENTS}/${id}/events?since=0`);
    expect((await events.next()) as unknown).toMatchObject({ event: "change", id: "1" });
    expect(await events.next()).toEqual(presenceFrame(body));

    t.clock.advance(4_999);
    await expect(events.next(200)).rejects.toThrow("no frame within 200 ms");
    t.clock.advance(1);

    expect(await events.next()).toEqual(presenceFrame('{"clients":[]}'));
    events.close();
  });

  it("goes on with the changes between presence frames", async () => {
    const presence = new PresenceClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const events = await listening(`${DOCUMENTS}/${id}/events?since=1`);

    expectNoContent(await presence.set(id, "c-ann", { state: {} }));
    expect(await events.next()).toEqual(presenceFrame(await listBody(id)));
    expect((await t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title: "Plan", content: "b" } })).statusCode).toBe(200);
    const next = await events.next();
    expect(next).toEqual(change(2, (await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/changes?since=1&wait=0` })).body));
    events.close();
  });
});

describe("event: presence on GET /read/{readId}/events", () => {
  it("carries the same frames, viewers included, and never the document's id", async () => {
    const presence = new PresenceClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await new ReadLinkClient(t.app).newReadId(id);
    const events = await listening(`${READ}/${readId}/events?since=1`);

    expectNoContent(await presence.readSet(readId, "c-vi", { displayName: "Vi", state: {} }));
    const frame = await events.next();

    expect(frame).toEqual(presenceFrame(await listBody(id)));
    expect(JSON.parse((frame as { data: string }).data)).toEqual({ clients: [{ clientId: "c-vi", displayName: "Vi", role: "viewer", state: {}, updatedAt: "2026-01-05T10:00:00.000Z" }] });
    expect(JSON.stringify(frame)).not.toContain(id);
    events.close();
  });
});
