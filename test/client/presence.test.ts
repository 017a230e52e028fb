import { afterEach, describe, expect, it } from "vitest";
import { createClient, createEncryptedDocument, generateDocumentKey, openReadOnly, type LiveDocument, type OpenOptions, type PresencePeer, type ReadOnlyLiveDocument } from "../../src/client/index.js";
import { servedAppPerTest } from "../support/app-per-test.js";
import { converged, openLive } from "../support/client-harness.js";
import { recordingFetch } from "../support/client-fetch.js";
import { until } from "../support/wait-until.js";

// The client library's presence (docs/api.md, "Presence", the client library) against the real
// service on loopback: set, hear, goodbye; sealed for encrypted documents; over the event stream
// or by reading the list; coalesced; a 429 waited out.

const opened: Array<{ close(): void }> = [];
const s = servedAppPerTest(undefined, () => opened.splice(0).forEach((doc) => doc.close()));
afterEach(() => opened.splice(0).forEach((doc) => doc.close()));

async function live(id: string, options: OpenOptions = {}) {
  const got = await openLive(s.baseUrl, id, options);
  opened.push(got.doc);
  return got;
}

/** The others a document heard last, kept as its `presence` event tells them. */
function heard(doc: LiveDocument | ReadOnlyLiveDocument): { last: PresencePeer[] | undefined } {
  const box: { last: PresencePeer[] | undefined } = { last: undefined };
  doc.on("presence", (others) => (box.last = others));
  return box;
}

/** The service's list, as any HTTP client reads it. */
async function rawList(id: string): Promise<{ clients: Array<Record<string, unknown>> }> {
  const answer = await fetch(`${s.baseUrl}/api/v1/documents/${id}/presence`);
  expect(answer.status).toBe(200);
  return (await answer.json()) as { clients: Array<Record<string, unknown>> };
}

const withoutTime = (peers: PresencePeer[] | undefined) => peers?.map(({ updatedAt: _updatedAt, ...peer }) => peer);

describe("presence over the event stream", () => {
  it("a client's name and cursor reach the other at once; its goodbye removes it", async () => {
    const id = (await s.client.createDocument({ title: "T", content: "hello world" })).id;
    const ann = await live(id, { feed: "stream" });
    const bob = await live(id, { feed: "stream" });
    const bobHears = heard(bob.doc);

    ann.doc.presence.set({ displayName: "Ann", cursor: { anchor: 6, head: 11 } });
    await until("Bob hears Ann", () => bobHears.last?.length === 1 && bobHears.last[0]!.cursor !== undefined);
    expect(withoutTime(bobHears.last)).toEqual([{ clientId: ann.doc.clientId, role: "editor", displayName: "Ann", cursor: { anchor: 6, head: 11 } }]);
    expect(withoutTime(bob.doc.presence.others)).toEqual(withoutTime(bobHears.last));
    // Ann does not list herself.
    expect(ann.doc.presence.others).toEqual([]);
    // The service holds the cursor with the version its positions refer to.
    const list = await rawList(id);
    expect(list.clients.map(({ updatedAt: _u, ...entry }) => entry)).toEqual([{ clientId: ann.doc.clientId, role: "editor", displayName: "Ann", state: { cursor: { anchor: 6, head: 11, version: 1 } } }]);
    // Over the stream nothing polls the list: at most the one read when a stream opens.
    expect(bob.net.calls("GET", "/presence").length).toBeLessThanOrEqual(2);

    await ann.doc.presence.leave();
    await until("Bob hears Ann leave", () => bobHears.last?.length === 0);
    expect((await rawList(id)).clients).toEqual([]);
    expect(ann.net.calls("DELETE", `/presence/${ann.doc.clientId}`).length).toBe(1);
  });

  it("a cursor stays on its characters while the other types before it, and carries its version", async () => {
    const id = (await s.client.createDocument({ title: "T", content: "hello world" })).id;
    const ann = await live(id, { feed: "stream" });
    const bob = await live(id, { feed: "stream" });
    const cid = await live(id, { feed: "stream" });
    const bobHears = heard(bob.doc);
    const cidHears = heard(cid.doc);
    ann.doc.presence.set({ cursor: { anchor: 6, head: 11 } });
    await until("both hear Ann", () => bobHears.last?.[0]?.cursor !== undefined && cidHears.last?.[0]?.cursor !== undefined);

    // Bob types before Ann's "world": unconfirmed first, then confirmed; Ann sends nothing more.
    bob.doc.edit([{ from: 0, to: 0, insert: "oh, " }]);
    expect(bob.doc.presence.others[0]!.cursor).toEqual({ anchor: 10, head: 15 });
    expect(await converged(s.client, id, [ann.doc, bob.doc, cid.doc])).toBe("oh, hello world");
    expect(bob.doc.presence.others[0]!.cursor).toEqual({ anchor: 10, head: 15 });
    expect(cid.doc.presence.others[0]!.cursor).toEqual({ anchor: 10, head: 15 });
    expect(bob.doc.text.slice(10, 15)).toBe("world");

    // Ann sends her cursor again, now on version 2: the same place for everyone.
    ann.doc.presence.set({ cursor: { anchor: 10, head: 15 } });
    await until("Ann's version-2 cursor sent", () => ann.net.calls("PUT", `/presence/${ann.doc.clientId}`)[1]?.settled === true);
    expect((await rawList(id)).clients[0]!["state"]).toEqual({ cursor: { anchor: 10, head: 15, version: 2 } });
    expect(cid.doc.presence.others[0]!.cursor).toEqual({ anchor: 10, head: 15 });
  });

  it("coalesces a burst of updates into the first and the latest, and refreshes the entry", async () => {
    const id = (await s.client.createDocument({ title: "T", content: "abcdefghijklmnopqrstuvwxyz" })).id;
    const ann = await live(id, { presence: { refreshMs: 300 } });
    for (let pos = 0; pos < 20; pos++) ann.doc.presence.set({ cursor: { anchor: pos, head: pos } });
    await until("two updates sent", () => ann.net.calls("PUT", "/presence/" + ann.doc.clientId).length >= 2);
    const puts = ann.net.calls("PUT", "/presence/" + ann.doc.clientId);
    expect(puts.slice(0, 2).map((put) => put.body)).toEqual([{ state: { cursor: { anchor: 0, head: 0, version: 1 } } }, { state: { cursor: { anchor: 19, head: 19, version: 1 } } }]);
    expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(245);
    // Then the same state again every refreshMs, until the goodbye.
    await until("refreshed twice", () => ann.net.calls("PUT", `/presence/${ann.doc.clientId}`).length >= 4);
    expect(ann.net.calls("PUT", `/presence/${ann.doc.clientId}`)[3]!.body).toEqual({ state: { cursor: { anchor: 19, head: 19, version: 1 } } });
    await ann.doc.presence.leave();
    const sent = ann.net.calls("PUT", `/presence/${ann.doc.clientId}`).length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(ann.net.calls("PUT", `/presence/${ann.doc.clientId}`).length).toBe(sent);
  });
});

it("a 429 is waited out as its Retry-After asks: one request in the wait, then the latest state", async () => {
  const id = (await s.client.createDocument({ title: "T", content: "abc" })).id;
  const ann = await live(id);
  let refused = 0;
  ann.net.hook = (request) =>
    request.method === "PUT" && request.path.includes("/presence/") && refused++ === 0
      ? { kind: "answer", status: 429, headers: { "retry-after": "1" }, body: { type: "urn:folio:problem:rate-limited", title: "Too Many Requests", status: 429, detail: "slow down" } }
      : undefined;
  ann.doc.presence.set({ displayName: "Ann", cursor: { anchor: 0, head: 0 } });
  await until("the first update refused", () => refused === 1);
  for (let pos = 1; pos <= 3; pos++) ann.doc.presence.set({ cursor: { anchor: pos, head: pos } });
  await until("an update taken", () => ann.net.calls("PUT", `/presence/${ann.doc.clientId}`).length === 2, 4_000);
  const puts = ann.net.calls("PUT", `/presence/${ann.doc.clientId}`);
  expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(990);
  expect(puts[1]!.body).toEqual({ displayName: "Ann", state: { cursor: { anchor: 3, head: 3, version: 1 } } });
  await until("the update answered", () => ann.net.calls("PUT", `/presence/${ann.doc.clientId}`)[1]!.settled);
  expect((await rawList(id)).clients.map((entry) => entry["state"])).toEqual([{ cursor: { anchor: 3, head: 3, version: 1 } }]);
});

it("over the long poll the list is read every pollMs, only while someone listens or the client is present", async () => {
  const id = (await s.client.createDocument({ title: "T", content: "hello" })).id;
  const timing = { presence: { pollMs: 200 } };
  const ann = await live(id, timing);
  const bob = await live(id, timing);
  const quiet = await live(id, timing);
  const bobHears = heard(bob.doc);
  ann.doc.presence.set({ displayName: "Ann", cursor: { anchor: 1, head: 3 } });
  await until("Bob reads Ann", () => bobHears.last?.length === 1);
  expect(withoutTime(bobHears.last)).toEqual([{ clientId: ann.doc.clientId, role: "editor", displayName: "Ann", cursor: { anchor: 1, head: 3 } }]);
  expect(bob.net.calls("GET", "/events").length).toBe(0);
  await until("Bob read the list a few times", () => bob.net.calls("GET", "/presence").length >= 3);
  // Nobody listens at the third and it is not present: it never reads the list.
  expect(quiet.net.calls("GET", "/presence").length).toBe(0);

  ann.doc.close();
  await until("Bob reads Ann gone", () => bobHears.last?.length === 0);
});

it("on an encrypted document the name and the cursor are sealed: the service's list holds neither", async () => {
  const key = generateDocumentKey();
  const id = (await createEncryptedDocument(s.client, { title: "Secret", content: "hello world" }, key)).id;
  const ann = await live(id, { key, feed: "stream" });
  const bob = await live(id, { key, feed: "stream" });
  const bobHears = heard(bob.doc);
  ann.doc.presence.set({ displayName: "Annabel", cursor: { anchor: 6, head: 11 } });
  await until("Bob hears Annabel", () => bobHears.last?.[0]?.displayName === "Annabel");
  expect(withoutTime(bobHears.last)).toEqual([{ clientId: ann.doc.clientId, role: "editor", displayName: "Annabel", cursor: { anchor: 6, head: 11 } }]);

  const list = await rawList(id);
  expect(list.clients.length).toBe(1);
  const entry = list.clients[0]!;
  expect(Object.keys(entry).sort()).toEqual(["clientId", "role", "state", "updatedAt"]);
  expect(Object.keys(entry["state"] as object)).toEqual(["sealed"]);
  const raw = JSON.stringify(list);
  for (const plain of ["Annabel", "anchor", "head", "cursor", "version", "displayName"]) expect(raw).not.toContain(plain);

  // An entry that does not open with the key (a plain one, written by hand) is read as unreadable: no name, no cursor.
  const put = await fetch(`${s.baseUrl}/api/v1/documents/${id}/presence/c-plain`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ displayName: "Eve", state: { cursor: { anchor: 1, head: 1, version: 1 } } }) });
  expect(put.status).toBe(204);
  await until("Bob hears the plain entry", () => bobHears.last?.length === 2);
  expect(withoutTime(bobHears.last)?.[1]).toEqual({ clientId: "c-plain", role: "editor", unreadable: true });
});

it("a viewer through the read-only link announces itself as a viewer and hears the editors", async () => {
  const id = (await s.client.createDocument({ title: "T", content: "hello world" })).id;
  const { readId } = await s.client.read.createLink(id);
  const net = recordingFetch();
  const viewer = await openReadOnly(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), readId, { feed: "stream" });
  opened.push(viewer);
  const ann = await live(id, { feed: "stream" });
  const annHears = heard(ann.doc);
  const viewerHears = heard(viewer);
  viewer.presence.set({ displayName: "Vic" });
  ann.doc.presence.set({ displayName: "Ann", cursor: { anchor: 0, head: 5 } });
  await until("each hears the other", () => annHears.last?.length === 1 && viewerHears.last?.[0]?.cursor !== undefined);
  expect(withoutTime(annHears.last)).toEqual([{ clientId: viewer.presence.clientId, role: "viewer", displayName: "Vic" }]);
  expect(withoutTime(viewerHears.last)).toEqual([{ clientId: ann.doc.clientId, role: "editor", displayName: "Ann", cursor: { anchor: 0, head: 5 } }]);
  expect(net.calls("PUT", `/read/${readId}/presence/${viewer.presence.clientId}`).length).toBe(1);

  // The viewer's text follows the editor's; Ann's cursor follows its characters there too.
  ann.doc.edit([{ from: 0, to: 0, insert: ">> " }]);
  await until("the viewer takes the change", () => viewer.text === ">> hello world");
  expect(viewer.presence.others[0]!.cursor).toEqual({ anchor: 3, head: 8 });

  viewer.close();
  await until("Ann hears the viewer leave", () => annHears.last?.length === 0);
});
