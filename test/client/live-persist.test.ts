import { describe, expect, it } from "vitest";
import type { PendingStore, PersistedPending } from "../../src/client/index.js";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged } from "../support/client-harness.js";
import { checksum } from "../support/http-expect.js";
import { waitUntil } from "../support/wait-until.js";

// The optional PendingStore: a reload (a new live document on the same store) resends the patch in
// flight unchanged, with its clientId and seq, so that the service answers from its receipt.

const served = liveDocumentsPerTest();
const s = served.s;

function memoryStore(): PendingStore & { saved: Map<string, PersistedPending> } {
  const saved = new Map<string, PersistedPending>();
  return {
    saved,
    load: (id) => saved.get(id),
    save: (id, pending) => {
      if (pending) saved.set(id, structuredClone(pending));
      else saved.delete(id);
    },
  };
}

const live = (id: string, pendingStore: PendingStore) => served.live(id, { pendingStore });

describe("a live document with a PendingStore", () => {
  it("resends the persisted patch unchanged after a reload; the service applied it once and answers from its receipt", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const store = memoryStore();
    const first = await live(id, store);
    // The service applies the patch but its answer is lost, and every later attempt too.
    first.net.hook = (request) => (request.method === "PATCH" ? { kind: "lose-answer" } : undefined);
    first.doc.setText("a\nb");
    expect(await waitUntil(() => first.net.calls("PATCH", "/content").length >= 2, { maxMs: 2_000 })).toBe(true);
    first.doc.close();
    const persisted = store.saved.get(id);
    expect(persisted?.request).toEqual(first.net.calls("PATCH", "/content")[0]?.body);
    expect(persisted).toMatchObject({ baseText: "a", baseVersion: 1, text: "a\nb", clientId: first.doc.clientId, nextSeq: 2 });

    const second = await live(id, store);
    expect(second.doc.clientId).toBe(first.doc.clientId);
    expect(await converged(s.client, id, [second.doc])).toBe("a\nb");
    expect(second.net.calls("PATCH", "/content").map((call) => call.body)).toEqual([persisted?.request]);
    expect((await s.client.history(id)).map((entry) => entry.version)).toEqual([1, 2]);
    expect(store.saved.has(id)).toBe(false);
  });

  it("keeps what the feed brought while the patch was in flight: the reopened document resends the patch and doubles nothing", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a\nb\nc" });
    const store = memoryStore();
    const first = await live(id, store);
    // The patch is held before it reaches the service; another person's change comes in meanwhile.
    const never = latch();
    first.net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: never.promise } : undefined);
    first.doc.setText("A\nb\nc");
    expect(await waitUntil(() => first.net.calls("PATCH", "/content").length === 1)).toBe(true);
    await s.client.patchContent(id, { baseVersion: 1, checksum: checksum("a\nb\nc"), clientId: "other", seq: 1, ops: [{ op: "insert", index: 3, lines: ["x"] }] });
    expect(await waitUntil(() => first.doc.text === "A\nb\nc\nx", { maxMs: 5_000 })).toBe(true);
    first.doc.setText("A\nb\nc\nx\nd");
    first.doc.close();
    const persisted = store.saved.get(id);
    expect(persisted).toMatchObject({ baseText: "a\nb\nc", baseVersion: 1, text: "A\nb\nc\nx\nd", localBaseText: "a\nb\nc\nx", expectedText: "A\nb\nc\nx", nextSeq: 2 });

    // Without those two texts the later edits would be taken as relative to "A b c", and the "x"
    // they carry would be put in a second time next to the service's.
    const second = await live(id, store);
    expect(await converged(s.client, id, [second.doc])).toBe("A\nb\nc\nx\nd");
    const sent = second.net.calls("PATCH", "/content").map((call) => call.body as { seq: number; baseVersion: number });
    expect(sent[0]).toEqual(persisted?.request);
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
    expect(store.saved.get(id)?.text).toBe("a\nb\nc");

    const second = await live(id, store);
    expect(second.doc.text).toBe("a\nb\nc");
    expect(await converged(s.client, id, [second.doc])).toBe("a\nb\nc");
    const seqs = second.net.calls("PATCH", "/content").map((call) => (call.body as { seq: number }).seq);
    expect(seqs).toEqual([1, 2]);
    expect(second.net.calls("PATCH", "/content")[0]?.body).toEqual(first.net.calls("PATCH", "/content")[0]?.body);
  });

  it("carries buffered edits without a patch in flight over onto the current text on reopen", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a\nb\nc" });
    await s.client.replaceDocument(id, { title: "T", content: "A\nb\nc" });
    const store = memoryStore();
    store.saved.set(id, { baseText: "a\nb\nc", baseVersion: 1, text: "a\nb\nC", clientId: "0123456789abcdef0123456789abcdef", nextSeq: 5 });

    const { doc, net } = await live(id, store);
    expect(await converged(s.client, id, [doc])).toBe("A\nb\nC");
    expect(net.calls("PATCH", "/content").map((call) => (call.body as { seq: number; clientId: string; baseVersion: number })).map(({ seq, clientId, baseVersion }) => ({ seq, clientId, baseVersion }))).toEqual([
      { seq: 5, clientId: "0123456789abcdef0123456789abcdef", baseVersion: 2 },
    ]);
  });
});
