import { beforeEach, describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { DOCUMENTS, T0, UNKNOWN_ID, at, contentTooLarge, createDocument, expectJson, expectProblem, expectProblemRetryAfter, historyEntry, invalid, notFound } from "../support/http-expect.js";
import { FeedClient, expectNoContent } from "../support/feed-client.js";
import { PresenceClient, present } from "../support/presence-client.js";

// docs/api.md, "Presence": who is at a document now, by the document's id; never stored. Runs on
// SQLite and (project "postgres") on PostgreSQL. Read links: presence-read-links.test.ts.

const t = appPerTest({ config: (config) => void (config.presence.maxClients = 3) });
let presence: PresenceClient;
let docs: FeedClient;

beforeEach(() => {
  presence = new PresenceClient(t.app);
  docs = new FeedClient(t.app);
});

const CURSOR = { cursor: { line: 3, column: 14 } };
const path = (id: string, clientId = "") => `${DOCUMENTS}/${id}/presence${clientId === "" ? "" : `/${clientId}`}`;

describe("PUT, GET and DELETE /documents/{documentId}/presence", () => {
  it("announces with 204, lists the entry as an editor's, and refreshes it in place", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });

    expectNoContent(await presence.set(id, "c-ann", { displayName: "Ann", state: CURSOR }));
    expectNoContent(await presence.set(id, "c-bo", { state: {} }));
    expectJson(await presence.list(id), 200, { clients: [present("c-ann", "editor", CURSOR, T0, "Ann"), present("c-bo", "editor", {}, T0)] });

    t.clock.advance(1500);
    expectNoContent(await presence.set(id, "c-ann", { state: { cursor: { line: 4, column: 0 } } }));

    expectJson(await presence.list(id), 200, { clients: [present("c-ann", "editor", { cursor: { line: 4, column: 0 } }, at(1500)), present("c-bo", "editor", {}, T0)] });
  });

  it("stores nothing: no version, no history entry, no feed event", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });

    expectNoContent(await presence.set(created.id, "c-ann", { displayName: "Ann", state: CURSOR }));
    expectNoContent(await presence.remove(created.id, "c-ann"));

    expectJson(await docs.get(created.id), 200, created);
    expectJson(await docs.history(created.id), 200, [historyEntry(created.id, 1, "CREATED", "Plan", "a", T0)]);
    expectNoContent(await docs.changes(created.id, 1, 0));
  });

  it("removes an entry at once on DELETE, and answers 204 again for one that is not there", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectNoContent(await presence.set(id, "c-ann", { state: CURSOR }));
    expectNoContent(await presence.set(id, "c-bo", { state: {} }));

    expectNoContent(await presence.remove(id, "c-ann"));
    expectJson(await presence.list(id), 200, { clients: [present("c-bo", "editor", {}, T0)] });
    expectNoContent(await presence.remove(id, "c-ann"));
    expectNoContent(await presence.remove(id, "c-never"));
    expectJson(await presence.list(id), 200, { clients: [present("c-bo", "editor", {}, T0)] });
  });

  it("answers 200 with an empty list for a document nobody is at", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });

    expectJson(await presence.list(id), 200, { clients: [] });
  });

  it("answers 404 for an unknown or a deleted document, and 400 for a malformed id", async () => {
    const deleted = await createDocument(t.app, { title: "Gone", content: "a" });
    expectNoContent(await presence.set(deleted.id, "c-ann", { state: {} }));
    expect((await docs.remove(deleted.id)).statusCode).toBe(204);

    for (const id of [UNKNOWN_ID, deleted.id]) {
      expectProblem(await presence.list(id), notFound(id, path(id)));
      expectProblem(await presence.set(id, "c-ann", { state: {} }), notFound(id, path(id, "c-ann")));
      expectProblem(await presence.remove(id, "c-ann"), notFound(id, path(id, "c-ann")));
    }
    expectProblem(await presence.list("not-a-uuid"), invalid('params.documentId: must match format "uuid"', path("not-a-uuid")));
  });
});

describe("what a presence update must be", () => {
  it("answers 400 for a body without state, a state that is no object, a name over 64 characters or a client id over 64", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const long = "x".repeat(65);

    expectProblem(await presence.set(id, "c-ann", { displayName: "Ann" } as never), invalid("body.state: must have required property 'state'", path(id, "c-ann")));
    expectProblem(await presence.set(id, "c-ann", { state: [1] }), invalid("body.state: must be object", path(id, "c-ann")));
    expectProblem(await presence.set(id, "c-ann", { state: "here" }), invalid("body.state: must be object", path(id, "c-ann")));
    expectProblem(await presence.set(id, "c-ann", { state: null }), invalid("body.state: must be object", path(id, "c-ann")));
    expectProblem(await presence.set(id, "c-ann", { displayName: long, state: {} }), invalid("body.displayName: must NOT have more than 64 characters", path(id, "c-ann")));
    expectProblem(await presence.set(id, long, { state: {} }), invalid("params.clientId: must NOT have more than 64 characters", path(id, long)));
    expectProblem(await presence.set(id, "c-ann", "{"), invalid("the body is not valid JSON: Body is not valid JSON but content-type is set to 'application/json'", path(id, "c-ann")));
    expectJson(await presence.list(id), 200, { clients: [] });
  });

  it("takes a state of 2048 bytes as JSON and answers 413 for one byte more (counted in UTF-8)", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    // {"s":"…"} is 8 bytes around the text.
    expectNoContent(await presence.set(id, "c-ann", { state: { s: "x".repeat(2040) } }));

    expectProblem(await presence.set(id, "c-bo", { state: { s: "x".repeat(2041) } }), contentTooLarge("the presence state is 2049 bytes as JSON; at most 2048", path(id, "c-bo")));
    expectProblem(await presence.set(id, "c-bo", { state: { s: "é".repeat(1021) } }), contentTooLarge("the presence state is 2050 bytes as JSON; at most 2048", path(id, "c-bo")));
    expectProblem(await presence.set(id, "c-bo", { state: { s: "x".repeat(20_000) } }), contentTooLarge("the request body is larger than the service accepts", path(id, "c-bo")));
    expectJson(await presence.list(id), 200, { clients: [present("c-ann", "editor", { s: "x".repeat(2040) }, T0)] });
  });
});

describe("expiry (service.presence.ttl-seconds, 30 by default)", () => {
  it("drops an entry not refreshed for 30 s, and keeps a refreshed one", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectNoContent(await presence.set(id, "c-ann", { state: {} }));
    expectNoContent(await presence.set(id, "c-bo", { state: {} }));

    t.clock.advance(20_000);
    expectNoContent(await presence.set(id, "c-bo", { state: CURSOR }));
    t.clock.advance(9_999);
    expectJson(await presence.list(id), 200, { clients: [present("c-ann", "editor", {}, T0), present("c-bo", "editor", CURSOR, at(20_000))] });

    t.clock.advance(1);
    expectJson(await presence.list(id), 200, { clients: [present("c-bo", "editor", CURSOR, at(20_000))] });
    t.clock.advance(20_000);
    expectJson(await presence.list(id), 200, { clients: [] });
  });

  it("forgets expired entries of a document nobody asks about, at the sweep", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const timers = t.clock.pendingTimers;
    expectNoContent(await presence.set(id, "c-ann", { state: {} }));
    expect([t.services.presence.size, t.clock.pendingTimers]).toEqual([1, timers + 1]);

    t.clock.advance(29_999);
    expect(t.services.presence.size).toBe(1);
    t.clock.advance(1);

    // Nothing held: no sweep is set until the next update.
    expect([t.services.presence.size, t.clock.pendingTimers]).toEqual([0, timers]);
  });
});

describe("limits", () => {
  it("answers 429 presence-full to a new client at a full document (max-clients), until an entry leaves or expires", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    for (const clientId of ["c-1", "c-2"]) expectNoContent(await presence.set(id, clientId, { state: {} }));
    t.clock.advance(10_000);
    expectNoContent(await presence.set(id, "c-3", { state: {} }));
    const full = (retry: number) => ({ status: 429, code: "presence-full", title: "Presence full", detail: `this document has 3 clients present, the most it holds; retry in ${retry} s`, instance: path(id, "c-4") });

    expectProblemRetryAfter(await presence.set(id, "c-4", { state: {} }), full(20), 20);
    expectNoContent(await presence.set(id, "c-1", { state: CURSOR }));
    expectNoContent(await presence.remove(id, "c-2"));
    expectNoContent(await presence.set(id, "c-4", { state: {} }));
    expectProblemRetryAfter(await presence.set(id, "c-5", { state: {} }), { ...full(30), instance: path(id, "c-5") }, 30);
  });

  it("answers 429 rate-limited to a client's 21st update within a second, and takes it again a second after the first", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    for (let update = 0; update < 20; update++) {
      expectNoContent(await presence.set(id, "c-ann", { state: { update } }));
      t.clock.advance(10);
    }
    const limited = { status: 429, code: "rate-limited", title: "Too many requests", detail: "more than 20 presence updates in a second from client c-ann; retry in 1 s", instance: path(id, "c-ann") };

    expectProblemRetryAfter(await presence.set(id, "c-ann", { state: { update: 20 } }), limited, 1);
    expectNoContent(await presence.set(id, "c-bo", { state: {} }));
    expectJson(await presence.list(id), 200, { clients: [present("c-ann", "editor", { update: 19 }, at(190)), present("c-bo", "editor", {}, at(200))] });
    t.clock.advance(799);
    expectProblemRetryAfter(await presence.set(id, "c-ann", { state: { update: 20 } }), limited, 1);
    t.clock.advance(1);
    expectNoContent(await presence.set(id, "c-ann", { state: { update: 20 } }));
  });
});

describe("the address's write limit", () => {
  const limited = appPerTest({ config: (config) => void (config.rateLimit.writesPerSecond = 2) });

  it("counts a presence update by its body, not by the size of the document", async () => {
    // Made by the service itself: a create through HTTP would spend the writes of many seconds.
    const { id } = await limited.services.documents.create({ title: "Big", content: "x".repeat(200 * 1024) });
    const client = new PresenceClient(limited.app);

    expectNoContent(await client.set(id, "c-ann", { state: {} }));
    expectNoContent(await client.set(id, "c-ann", { state: {} }));
    expect((await client.set(id, "c-ann", { state: {} })).statusCode).toBe(429);
  });
});
