import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, openReadOnly, type ReadOnlyChange, type ReadOnlyLiveDocument, type ReadOnlyOptions } from "../../src/client/index.js";
import { caught, serveTestApp, type ServedApp } from "../support/client-harness.js";
import { recordingFetch, type RecordingFetch } from "../support/client-fetch.js";
import { checksum } from "../support/http-expect.js";
import { until } from "../support/wait-until.js";

// The client's read-link calls (client.read) and openReadOnly, against the real service on loopback
// (docs/sharing.md).

let s: ServedApp;
const followers: ReadOnlyLiveDocument[] = [];

beforeEach(async () => {
  s = await serveTestApp();
});

afterEach(async () => {
  followers.splice(0).forEach((follower) => follower.close());
  await s.close();
});

const FAST = { waitSeconds: 2, retry: { initialMs: 5, maxMs: 50 } };

/** A document "a" (version 1) with a read link. */
async function shared(): Promise<{ id: string; readId: string }> {
  const { id } = await s.client.createDocument({ title: "Plan", content: "a" });
  const { readId } = await s.client.read.createLink(id);
  return { id, readId };
}

async function follow(readId: string): Promise<{ doc: ReadOnlyLiveDocument; changes: ReadOnlyChange[]; seen: string[] }> {
  const doc = await openReadOnly(s.client, readId, FAST);
  followers.push(doc);
  const changes: ReadOnlyChange[] = [];
  const seen: string[] = [];
  doc.on("change", (change) => changes.push(change));
  doc.on("title", (title) => seen.push(`title ${title}`));
  for (const event of ["deleted", "restored", "revoked"] as const) doc.on(event, () => seen.push(event));
  return { doc, changes, seen };
}

/** A follower through a fetch whose feed polls fail until `recover()`, seen failing once. */
async function followFailing(readId: string, options: ReadOnlyOptions): Promise<{ doc: ReadOnlyLiveDocument; net: RecordingFetch; recover: () => void }> {
  const net = recordingFetch();
  let failing = true;
  net.hook = (request) => (failing && request.path.includes("/changes") ? { kind: "fail-before" } : undefined);
  const doc = await openReadOnly(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), readId, options);
  followers.push(doc);
  await until("the follower to see its poll fail", () => doc.status === "offline");
  return { doc, net, recover: () => (failing = false) };
}

/** The `wait` each feed poll asked with, in order. */
function waitsAsked(net: RecordingFetch): (string | null)[] {
  return net.calls("GET", "/changes").map((call) => new URL(call.path, "http://x").searchParams.get("wait"));
}

describe("createClient: read links", () => {
  it("makes, shows, rotates and deletes a link, and reads the document, its history and its feed through it", async () => {
    const { id } = await s.client.createDocument({ title: "Plan", content: "a" });
    const { readId: first } = await s.client.read.createLink(id);
    const { readId } = await s.client.read.createLink(id);
    await s.client.replaceDocument(id, { title: "Plan", content: "a\nb" });
    const document = await s.client.getDocument(id);

    expect(await s.client.read.link(id)).toEqual({ readId });
    expect(await s.client.read.document(readId)).toEqual({ readId, title: "Plan", content: "a\nb", version: 2, createdAt: document.createdAt, updatedAt: document.updatedAt });
    expect(await s.client.read.history(readId)).toEqual((await s.client.history(id)).map((entry) => ({ ...entry, documentId: readId })));
    expect(await s.client.read.changes(readId, { since: 1, wait: 0 })).toEqual({
      fromVersion: 1,
      currentVersion: 2,
      ops: [{ op: "insert", index: 1, lines: ["b"] }],
      events: [{ version: 2, changeType: "UPDATED" }],
    });
    expect(await s.client.read.changes(readId, { since: 2, wait: 0 })).toBeNull();
    expect((await caught(s.client.read.document(first))).problem?.detail).toBe(`no read link ${first}`);

    await s.client.read.deleteLink(id);
    const gone = await caught(s.client.read.link(id));
    expect({ status: gone.status, code: gone.code, detail: gone.problem?.detail }).toEqual({ status: 404, code: "not-found", detail: `document ${id} has no read link` });
    expect((await caught(s.client.read.deleteLink(id))).status).toBe(404);
  });
});

describe("openReadOnly", () => {
  it("follows edits, a rename and a rollback to another title, with the character changes of each", async () => {
    const { id, readId } = await shared();
    const { doc, changes, seen } = await follow(readId);
    expect({ text: doc.text, title: doc.title, version: doc.version, deleted: doc.deleted, revoked: doc.revoked }).toEqual({ text: "a", title: "Plan", version: 1, deleted: false, revoked: false });

    await s.client.patchContent(id, { baseVersion: 1, checksum: checksum("a"), clientId: "c-ann", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] });
    await until("the follower at version 2", () => doc.version === 2);
    await s.client.renameDocument(id, { title: "Plan B", expectedVersion: 2 });
    await until("the follower at version 3", () => doc.version === 3);
    await s.client.restore(id, 1);
    await until("the follower at version 4 with the old title", () => doc.version === 4 && doc.title === "Plan");

    expect(changes.map(({ edits, version }) => ({ edits, version }))).toEqual([
      { edits: [{ from: 1, to: 1, insert: "\nb" }], version: 2 },
      { edits: [{ from: 1, to: 3, insert: "" }], version: 4 },
    ]);
    expect(seen).toEqual(["title Plan B", "title Plan"]);
    expect(doc.text).toBe("a");
  });

  it("turns deleted on DELETED and back on RESTORED", async () => {
    const { id, readId } = await shared();
    const { doc, seen } = await follow(readId);

    await s.client.deleteDocument(id);
    await until("the follower to see the deletion", () => doc.deleted);
    await s.client.restore(id);
    await until("the follower to see the restore", () => !doc.deleted && doc.version === 3);

    expect(seen).toEqual(["deleted", "restored"]);
    expect({ text: doc.text, title: doc.title }).toEqual({ text: "a", title: "Plan" });
  });

  it("stops and says revoked when the link is deleted, and sends nothing more", async () => {
    const { id, readId } = await shared();
    const net = recordingFetch();
    const doc = await openReadOnly(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), readId, FAST);
    followers.push(doc);
    const seen: string[] = [];
    doc.on("revoked", () => seen.push("revoked"));
    await until("the first poll", () => net.calls("GET", "/changes").length === 1);

    await s.client.read.deleteLink(id);
    await s.client.patchContent(id, { baseVersion: 1, checksum: checksum("a"), clientId: "c-ann", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] });
    await until("the follower to see the revocation", () => doc.revoked);
    const polls = net.calls("GET", "/changes").length;
    await s.client.patchContent(id, { baseVersion: 2, checksum: checksum("a\nb"), clientId: "c-ann", seq: 2, ops: [{ op: "insert", index: 2, lines: ["c"] }] });

    expect(seen).toEqual(["revoked"]);
    expect({ text: doc.text, version: doc.version }).toEqual({ text: "a", version: 1 });
    expect(net.calls("GET", "/changes").length).toBe(polls);
    expect(net.calls("GET", "/changes").every((call) => call.settled)).toBe(true);
  });

  it("says offline while its polls fail and live again once one succeeds", async () => {
    const { id, readId } = await shared();
    const net = recordingFetch();
    let failing = true;
    net.hook = (request) => (failing && request.path.includes("/changes") ? { kind: "fail-before" } : undefined);
    const doc = await openReadOnly(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), readId, FAST);
    followers.push(doc);
    const statuses: string[] = [];
    doc.on("status", (status) => statuses.push(status));
    expect(doc.status).toBe("live");
    await until("the follower to see its polls fail", () => doc.status === "offline");
    failing = false;
    await s.client.patchContent(id, { baseVersion: 1, checksum: checksum("a"), clientId: "c-ann", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] });
    await until("the follower to be live with the edit", () => doc.status === "live" && doc.text === "a\nb");

    expect(statuses).toEqual(["offline", "live"]);
  });

  it("polls again at once on retryNow(), not after the backoff of its failed poll", async () => {
    const { id, readId } = await shared();
    // The wait after a failed poll is 20-40 s: only retryNow() ends it within the test.
    const { doc, net, recover } = await followFailing(readId, { waitSeconds: 2, retry: { initialMs: 40_000, maxMs: 40_000 } });
    recover();
    await s.client.patchContent(id, { baseVersion: 1, checksum: checksum("a"), clientId: "c-ann", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] });
    expect(net.calls("GET", "/changes")).toHaveLength(1);
    doc.retryNow();
    await until("the follower to be live with the edit", () => doc.status === "live" && doc.text === "a\nb", 3_000);
    expect(net.calls("GET", "/changes").length).toBeGreaterThanOrEqual(2);
  });

  it("is live again as soon as a poll gets through after failing, not after a long poll's wait: that poll asks with wait=0", async () => {
    const { readId } = await shared();
    // Long polls of 20 s and nothing new: only a poll answered at once makes it live within the test.
    const { doc, net, recover } = await followFailing(readId, { waitSeconds: 20, retry: { initialMs: 40_000, maxMs: 40_000 } });
    recover();
    doc.retryNow();
    await until("the follower to be live again", () => doc.status === "live", 3_000);
    await until("the follower to long poll again", () => net.calls("GET", "/changes").length === 3, 3_000);
    expect(waitsAsked(net)).toEqual(["20", "0", "20"]);
  });

  it("backs off further while its long polls fail though its quick polls get through (a proxy that cuts held requests)", async () => {
    const { readId } = await shared();
    const net = recordingFetch();
    net.hook = (request) => (request.path.includes("/changes") && request.path.includes("wait=20") ? { kind: "fail-before" } : undefined);
    // Waits of 50-100, 100-200, then 200-400 ms: only a backoff that the quick polls do not reset.
    const doc = await openReadOnly(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), readId, { waitSeconds: 20, retry: { initialMs: 100, maxMs: 10_000 } });
    followers.push(doc);
    const longPolls = () => net.calls("GET", "/changes").filter((call) => call.path.includes("wait=20"));
    await until("four long polls", () => longPolls().length >= 4, 5_000);

    expect(waitsAsked(net).slice(0, 7)).toEqual(["20", "0", "20", "0", "20", "0", "20"]);
    const [, , third, fourth] = longPolls();
    expect(fourth!.at - third!.at).toBeGreaterThanOrEqual(200);
  });

  it("waits out a Retry-After of its feed even when retryNow() is called", async () => {
    const { readId } = await shared();
    const net = recordingFetch();
    net.hook = (request) =>
      request.path.includes("/changes") && net.calls("GET", "/changes").length === 1
        ? { kind: "answer", status: 503, headers: { "retry-after": "2" }, body: { type: "urn:folio:problem:x", title: "busy", status: 503, detail: "later", instance: "/" } }
        : undefined;
    const doc = await openReadOnly(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), readId, FAST);
    followers.push(doc);
    await until("the follower to see its poll refused", () => doc.status === "offline");
    doc.retryNow();
    await until("the follower to poll again", () => net.calls("GET", "/changes").length >= 2, 5_000);
    const [refused, next] = net.calls("GET", "/changes");
    expect(next!.at - refused!.at).toBeGreaterThanOrEqual(2_000);
  });

  it("rejects with a FolioError 404 for an unknown link and for a deleted document", async () => {
    const { id, readId } = await shared();
    await s.client.deleteDocument(id);

    expect((await caught(openReadOnly(s.client, readId))).problem?.detail).toBe(`the document of read link ${readId} is deleted`);
    expect((await caught(openReadOnly(s.client, id))).problem?.detail).toBe(`no read link ${id}`);
  });
});
