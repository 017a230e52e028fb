import { ChangeSet } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import type { EarlierPending, PendingStore, StoredPending } from "../../src/client/index.js";
import { PLAIN_CODEC } from "../../src/client/line-codec.js";
import { replay, snapshotRecord } from "../../src/client/pending-log.js";
import { serviceTextOf } from "../../src/client/service-text.js";
import { edited, startSync } from "../../src/client/sync-text.js";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged } from "../support/client-harness.js";
import { checksum } from "../support/http-expect.js";
import { waitUntil } from "../support/wait-until.js";

// The optional PendingStore: the texts are kept as a snapshot and the entries appended since, so a
// reload (a new live document on the same store) resends the patch in flight unchanged, with its
// clientId and seq, and the service answers from its receipt.

const served = liveDocumentsPerTest();
const s = served.s;

/** A store in memory that counts its writes. */
function memoryStore(): PendingStore & { saved: Map<string, StoredPending>; saves: number; appends: number } {
  const saved = new Map<string, StoredPending>();
  const store = {
    saved,
    saves: 0,
    appends: 0,
    load: (id: string) => structuredClone(saved.get(id)),
    save: (id: string, record: StoredPending | undefined) => {
      store.saves++;
      if (record) saved.set(id, structuredClone(record));
      else saved.delete(id);
    },
    append: (id: string, entry: string) => {
      store.appends++;
      saved.get(id)!.entries.push(entry);
    },
  };
  return store;
}

const live = (id: string, pendingStore: PendingStore) => served.live(id, { pendingStore });
const patchesOf = (net: Awaited<ReturnType<typeof live>>["net"]) => net.calls("PATCH", "/content").map((call) => call.body as { seq: number; baseVersion: number });

describe("a live document with a PendingStore", () => {
  it("resends the kept patch unchanged after a reload; the service applied it once and answers from its receipt", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const store = memoryStore();
    const first = await live(id, store);
    // The service applies the patch but its answer is lost, and every later attempt too.
    first.net.hook = (request) => (request.method === "PATCH" ? { kind: "lose-answer" } : undefined);
    first.doc.setText("a\nb");
    expect(await waitUntil(() => first.net.calls("PATCH", "/content").length >= 2, { maxMs: 2_000 })).toBe(true);
    first.doc.close();
    const kept = replay(store.saved.get(id)!, PLAIN_CODEC)!;
    expect(kept.sync.inflight?.request).toEqual(first.net.calls("PATCH", "/content")[0]?.body);
    expect([kept.sync.local.toString(), kept.sync.confirmed.version, kept.nextSeq, store.saved.get(id)!.clientId]).toEqual(["a\nb", 1, 2, first.doc.clientId]);

    const second = await live(id, store);
    expect(second.doc.clientId).toBe(first.doc.clientId);
    expect(await converged(s.client, id, [second.doc])).toBe("a\nb");
    expect(second.net.calls("PATCH", "/content").map((call) => call.body)).toEqual([kept.sync.inflight?.request]);
    expect((await s.client.history(id)).map((entry) => entry.version)).toEqual([1, 2]);
    // Closed with nothing unconfirmed, the record goes.
    second.doc.close();
    expect(await waitUntil(() => !store.saved.has(id), { maxMs: 2_000 })).toBe(true);
  });

  it("keeps a keystroke as one entry appended, and writes the whole text only as a snapshot at the first one", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a\nb\nc" });
    const store = memoryStore();
    const { doc, net } = await live(id, store);
    net.hook = (request) => (request.method === "PATCH" ? { kind: "fail-before" } : undefined);
    // Nothing to keep yet: no record.
    expect([store.saves, store.appends, store.saved.has(id)]).toEqual([0, 0, false]);
    for (const [at, key] of [[1, "x"], [2, "y"], [3, "z"]] as const) doc.edit([{ from: at, to: at, insert: key }]);
    expect([store.saves, store.appends]).toEqual([1, 2]);
    // Each entry holds its own change, not the text.
    expect(store.saved.get(id)!.entries.map((entry) => JSON.parse(entry) as unknown)).toEqual([{ edit: [2, [0, "y"], 4] }, { edit: [3, [0, "z"], 4] }]);
    expect(replay(store.saved.get(id)!, PLAIN_CODEC)?.sync.local.toString()).toBe("axyz\nb\nc");
    doc.close();
  });

  it("compacts the entries into a snapshot once the document has been idle for two seconds, and removes the record once all is saved", { timeout: 10_000 }, async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const store = memoryStore();
    const { doc, net } = await live(id, store);
    const gate = latch();
    net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: gate.promise } : undefined);
    doc.edit([{ from: 1, to: 1, insert: "b" }]);
    doc.edit([{ from: 2, to: 2, insert: "c" }]);
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    expect(store.saved.get(id)!.entries.length).toBeGreaterThan(0);
    expect(await waitUntil(() => store.saved.get(id)?.entries.length === 0, { maxMs: 4_000, pauseMs: 20 })).toBe(true);
    const kept = replay(store.saved.get(id)!, PLAIN_CODEC)!;
    expect([kept.sync.confirmed.version, kept.sync.local.toString(), store.saved.get(id)!.unsent]).toEqual([1, "abc", true]);
    gate.open();
    await doc.whenSynced(5_000);
    // Idle with all saved: the record goes.
    expect(await waitUntil(() => !store.saved.has(id), { maxMs: 4_000, pauseMs: 20 })).toBe(true);
    doc.close();
  });

  it("writes the whole text once per spell of typing, not at each key after an answer that confirmed all", { timeout: 10_000 }, async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const store = memoryStore();
    const { doc } = await live(id, store);
    // Each key is confirmed before the next: one snapshot at the first, entries after it.
    for (const [at, key] of [[1, "b"], [2, "c"], [3, "d"]] as const) {
      doc.edit([{ from: at, to: at, insert: key }]);
      await doc.whenSynced(5_000);
    }
    expect(store.saves).toBe(1);
    expect(store.appends).toBeGreaterThanOrEqual(5);
    // What the record holds replays to the confirmed text, nothing unconfirmed.
    const kept = replay(store.saved.get(id)!, PLAIN_CODEC)!;
    expect([kept.sync.local.toString(), kept.sync.confirmed.version, kept.sync.pending.empty, kept.sync.inflight]).toEqual(["abcd", 4, true, undefined]);
    // Idle, with all saved: removed.
    expect(await waitUntil(() => !store.saved.has(id), { maxMs: 4_000, pauseMs: 20 })).toBe(true);
    expect(store.saves).toBe(2);
    doc.close();
  });

  it("keeps what came while the patch was held: the reopened document resends the patch and doubles nothing", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a\nb\nc" });
    const store = memoryStore();
    const first = await live(id, store);
    // The patch is held before it reaches the service; another person's change comes in meanwhile.
    const never = latch();
    first.net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: never.promise } : undefined);
    first.doc.setText("A\nb\nc");
    expect(await waitUntil(() => first.net.calls("PATCH", "/content").length === 1)).toBe(true);
    await s.client.patchContent(id, { baseVersion: 1, checksum: checksum("a\nb\nc"), clientId: "other", seq: 1, ops: [{ op: "insert", index: 3, lines: ["x"] }] });
    first.doc.setText("A\nb\nc\nd");
    first.doc.close();

    const second = await live(id, store);
    expect(second.doc.text).toBe("A\nb\nc\nd");
    expect(await converged(s.client, id, [second.doc])).toBe("A\nb\nc\nx\nd");
    const sent = patchesOf(second.net);
    expect(sent[0]).toEqual(first.net.calls("PATCH", "/content")[0]?.body);
    expect(sent.map(({ seq, baseVersion }) => ({ seq, baseVersion }))).toEqual([
      { seq: 1, baseVersion: 1 },
      { seq: 2, baseVersion: 3 },
    ]);
  });

  it("keeps the edits made offline across a reload: the patch in flight first, the rest as the next seq", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const store = memoryStore();
    const first = await live(id, store);
    first.net.hook = (request) => (request.method === "PATCH" ? { kind: "fail-before" } : undefined);
    first.doc.setText("a\nb");
    expect(await waitUntil(() => first.net.calls("PATCH", "/content").length >= 1)).toBe(true);
    first.doc.setText("a\nb\nc");
    first.doc.close();
    expect(replay(store.saved.get(id)!, PLAIN_CODEC)?.sync.local.toString()).toBe("a\nb\nc");

    const second = await live(id, store);
    expect(second.doc.text).toBe("a\nb\nc");
    expect(await converged(s.client, id, [second.doc])).toBe("a\nb\nc");
    expect(patchesOf(second.net).map((patch) => patch.seq)).toEqual([1, 2]);
    expect(second.net.calls("PATCH", "/content")[0]?.body).toEqual(first.net.calls("PATCH", "/content")[0]?.body);
  });

  it("sends kept edits without a patch in flight at once, on the version they rest on: the service shifts them over what came since", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a\nb\nc" });
    await s.client.replaceDocument(id, { title: "T", content: "A\nb\nc" });
    const store = memoryStore();
    const base = startSync(serviceTextOf(PLAIN_CODEC, 1, "a\nb\nc"));
    const sync = edited(base, ChangeSet.of([{ from: 4, to: 5, insert: "C" }], base.local.length));
    store.saved.set(id, snapshotRecord(sync, "0123456789abcdef0123456789abcdef", 5, PLAIN_CODEC));

    const { doc, net } = await live(id, store);
    expect(await converged(s.client, id, [doc])).toBe("A\nb\nC");
    expect(net.calls("PATCH", "/content").map((call) => call.body as { seq: number; clientId: string; baseVersion: number }).map(({ seq, clientId, baseVersion }) => ({ seq, clientId, baseVersion }))).toEqual([
      { seq: 5, clientId: "0123456789abcdef0123456789abcdef", baseVersion: 1 },
    ]);
  });

  it("leaves out a record that does not open (another key), and never sends its seqs again", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const store = memoryStore();
    store.saved.set(id, { clientId: "0123456789abcdef0123456789abcdef", unsent: true, nextSeq: 4, snapshot: "not JSON", entries: ["x", "y"] });
    const { doc, net } = await live(id, store);
    expect(doc.text).toBe("a");
    doc.setText("ab");
    await doc.whenSynced(5_000);
    expect(patchesOf(net).map((patch) => patch.seq)).toEqual([6]);
  });

  it("takes over a record of the earlier format (a whole local text over a base version): its edits are sent on their base, the service shifts them, and the record is rewritten in the present format", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a\nb" });
    // Someone else's change came after the base the earlier record was kept on.
    await s.client.patchContent(id, { baseVersion: 1, checksum: checksum("a\nb"), clientId: "someone-else", seq: 1, ops: [{ op: "insert", index: 2, lines: ["c"] }] });
    const earlier = { clientId: "earlier-page", nextSeq: 4, baseVersion: 1, baseText: "a\nb", text: "a kept\nb" };
    const saved = new Map<string, object>([[id, earlier]]);
    const store: PendingStore = {
      load: (documentId) => saved.get(documentId) as EarlierPending | undefined,
      save: (documentId, record) => void (record ? saved.set(documentId, structuredClone(record)) : saved.delete(documentId)),
      append: (documentId, entry) => void (saved.get(documentId) as StoredPending).entries.push(entry),
    };
    const { doc, net } = await live(id, store);
    expect(doc.clientId).toBe("earlier-page");
    expect(await converged(s.client, id, [doc])).toBe("a kept\nb\nc");
    expect(patchesOf(net).map((patch) => [patch.seq, patch.baseVersion])).toEqual([[4, 1]]);
    doc.close();
    expect(await waitUntil(() => !saved.has(id), { maxMs: 2_000 })).toBe(true);
  });
});
