import { describe, expect, it } from "vitest";
import type { Conflict, OpenOptions, SyncStatus, TextChange } from "../../src/client/index.js";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged } from "../support/client-harness.js";
import { checksum } from "../support/http-expect.js";
import { waitUntil } from "../support/wait-until.js";
import { mapCursor } from "../support/word-convergence.js";

// The patch rules of a live document, each against the real service on loopback; faults are
// injected between the client and the service by the recording fetch.

const { s, live } = liveDocumentsPerTest();

async function document(content: string): Promise<string> {
  return (await s.client.createDocument({ title: "T", content })).id;
}

const replace = (index: number, ...lines: string[]) => ({ op: "replace", index, count: 1, lines });

describe("a live document sending local edits", () => {
  it("loads the document and sends an edit as a minimal diff against the confirmed text, with a random clientId and seq 1", async () => {
    const id = await document("a\nb\nc");
    const { doc, net } = await live(id);
    expect({ text: doc.text, version: doc.version, title: doc.title, deleted: doc.deleted }).toEqual({ text: "a\nb\nc", version: 1, title: "T", deleted: false });

    doc.setText("a\nB\nc");
    await converged(s.client, id, [doc]);
    expect(net.calls("PATCH", "/content").map((call) => call.body)).toEqual([
      { baseVersion: 1, checksum: checksum("a\nb\nc"), clientId: expect.stringMatching(/^[0-9a-f]{32}$/) as string, seq: 1, ops: [replace(1, "B")] },
    ]);
    expect(doc.clientId).not.toBe((await live(id)).doc.clientId);
    expect(doc.version).toBe(2);
  });

  it("keeps one patch in flight and sends the edits made meanwhile as one fresh diff when it is answered", async () => {
    const id = await document("a\nb\nc");
    const gate = latch();
    const { doc, net } = await live(id);
    net.hook = (request) => (request.method === "PATCH" && net.calls("PATCH", "/content").length === 1 ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("A\nb\nc");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    doc.setText("A\nB\nc");
    doc.setText("A\nB\nC");
    expect(doc.status).toBe("syncing");
    expect(net.calls("PATCH", "/content")).toHaveLength(1);
    gate.open();

    expect(await converged(s.client, id, [doc])).toBe("A\nB\nC");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body as { baseVersion: number; seq: number; ops: unknown });
    expect(bodies.map(({ baseVersion, seq, ops }) => ({ baseVersion, seq, ops }))).toEqual([
      { baseVersion: 1, seq: 1, ops: [replace(0, "A")] },
      { baseVersion: 2, seq: 2, ops: [{ op: "replace", index: 1, count: 2, lines: ["B", "C"] }] },
    ]);
  });

  it("rebuilds the text after a shifted answer by the rebuild rule, carrying later edits over, without a reload", async () => {
    const id = await document("a\nb\nc\nd");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("A\nb\nc\nd");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    other.setText("a\nb\nC\nd");
    await other.whenSynced(5_000);
    doc.setText("A\nb\nc\nD");
    gate.open();

    expect(await converged(s.client, id, [doc, other])).toBe("A\nb\nC\nD");
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(1);
  });

  it("reloads when the checksum of the answer differs from the rebuilt text, and reports it", async () => {
    const id = await document("a\nb");
    const { doc, net } = await live(id);
    const errors: Error[] = [];
    doc.on("error", (error) => errors.push(error));
    net.hook = (request) =>
      request.method === "PATCH" ? { kind: "edit-answer", change: (body) => ({ ...(body as object), checksum: checksum("something else") }) } : undefined;

    doc.setText("a\nB");
    expect(await converged(s.client, id, [doc])).toBe("a\nB");
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(2);
    expect(errors.map((error) => error.message)).toEqual(["the text after version 2 could not be rebuilt exactly; reloading"]);
  });

  it("on a 422 reloads once and sends the edits again as a fresh diff with the next seq", async () => {
    const id = await document("a\nb");
    const { doc, net } = await live(id);
    net.hook = (request, index) =>
      request.method === "PATCH" && net.calls("PATCH", "/content")[0] === net.sent[index]
        ? { kind: "tamper", change: (body) => ({ ...body, checksum: checksum("not the base") }) }
        : undefined;

    doc.setText("a\nb\nc");
    expect(await converged(s.client, id, [doc])).toBe("a\nb\nc");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body as { seq: number; baseVersion: number });
    expect(bodies.map(({ seq, baseVersion }) => ({ seq, baseVersion }))).toEqual([
      { seq: 1, baseVersion: 1 },
      { seq: 2, baseVersion: 1 },
    ]);
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(2);
  });

  it("resends the very same patch after a failure before sending and after a lost answer; the service applies it once", async () => {
    const id = await document("a");
    const { doc, net } = await live(id);
    const faults = ["fail-before", "lose-answer", "lose-answer"] as const;
    net.hook = (request) => {
      if (request.method !== "PATCH") return undefined;
      const kind = faults[net.calls("PATCH", "/content").length - 1];
      return kind ? { kind } : undefined;
    };

    doc.setText("a\nb");
    expect(await converged(s.client, id, [doc])).toBe("a\nb");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body);
    expect(bodies).toHaveLength(4);
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    expect((await s.client.history(id)).map((entry) => entry.version)).toEqual([1, 2]);
    expect(doc.version).toBe(2);
  });

  it.each([503, 429])("waits the Retry-After of a %s before sending the same patch again", async (status) => {
    const id = await document("a");
    const { doc, net } = await live(id);
    net.hook = (request) =>
      request.method === "PATCH" && net.calls("PATCH", "/content").length === 1
        ? { kind: "answer", status, headers: { "retry-after": "1" }, body: { type: "urn:folio:problem:x", title: "busy", status, detail: "later", instance: "/" } }
        : undefined;
    const statuses: string[] = [];
    doc.on("status", (value) => statuses.push(value));

    doc.setText("b");
    expect(await converged(s.client, id, [doc])).toBe("b");
    const [first, second] = net.calls("PATCH", "/content");
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_000);
    expect(second!.body).toEqual(first!.body);
    expect(statuses).toContain("offline");
    expect(statuses.at(-1)).toBe("synced");
  });
});

describe("a live document on a 409", () => {
  // The document's first patch is held until another live document changed the same line, and its
  // feed after a first answer (a rename, version 2) until the end: the other change reaches it by the 409.
  async function conflicted(texts: { base: string; mine: string; theirs: string }, options: OpenOptions = {}, listen = true) {
    const id = await document(texts.base);
    const [patchGate, feedGate] = [latch(), latch()];
    const { doc, net } = await live(id, options);
    const other = (await live(id)).doc;
    const conflicts: Conflict[] = [];
    const errors: Error[] = [];
    const statuses: SyncStatus[] = [];
    // A listener, as the editor page has one: by itself it does not switch the document to asking.
    if (listen) doc.on("conflict", (conflict) => conflicts.push(conflict));
    doc.on("error", (error) => errors.push(error));
    doc.on("status", (status) => statuses.push(status));
    net.hook = (request) => {
      if (request.method === "PATCH") return net.calls("PATCH", "/content").length === 1 ? { kind: "hold", until: patchGate.promise } : undefined;
      return request.path.includes("/changes") ? { kind: "hold", until: feedGate.promise } : undefined;
    };
    await s.client.renameDocument(id, { title: "Renamed", expectedVersion: 1 });
    expect(await waitUntil(() => doc.version === 2, { maxMs: 5_000 })).toBe(true);
    doc.setText(texts.mine);
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    other.setText(texts.theirs);
    await other.whenSynced(5_000);
    const release = () => patchGate.open();
    const settle = () => {
      feedGate.open();
      return converged(s.client, id, [doc, other]);
    };
    return { id, doc, net, conflicts, errors, statuses, release, settle };
  }

  it("merges the contested line keeping both people's words, the service's first, and sends the merge on the current version", async () => {
    const texts = { base: "a\nAnnounce on\nc", mine: "a\nAnnounce on Monday via blog\nc", theirs: "a\nAnnounce on Tuesday via email\nc" };
    const { id, doc, net, conflicts, errors, statuses, release, settle } = await conflicted(texts, { conflicts: "merge" });
    release();

    expect(await waitUntil(() => doc.text === "a\nAnnounce on Tuesday via email Monday via blog\nc" && doc.status === "synced", { maxMs: 5_000 })).toBe(true);
    expect(await settle()).toBe("a\nAnnounce on Tuesday via email Monday via blog\nc");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body as { baseVersion: number; seq: number; ops: unknown });
    expect(bodies.map(({ baseVersion, seq, ops }) => ({ baseVersion, seq, ops }))).toEqual([
      { baseVersion: 2, seq: 1, ops: [replace(1, "Announce on Monday via blog")] },
      { baseVersion: 3, seq: 2, ops: [replace(1, "Announce on Tuesday via email Monday via blog")] },
    ]);
    expect({ conflicts: conflicts.length, errors, sawConflict: statuses.includes("conflict") }).toEqual({ conflicts: 0, errors: [], sawConflict: false });
    expect((await s.client.history(id)).map((entry) => entry.version).at(-1)).toBe(4);
  });

  it("is the default", async () => {
    const { doc, conflicts, release, settle } = await conflicted({ base: "a\nb\nc", mine: "a\nb mine\nc", theirs: "a\nb theirs\nc" });
    release();
    expect(await waitUntil(() => doc.text === "a\nb theirs mine\nc" && doc.status === "synced", { maxMs: 5_000 })).toBe(true);
    expect(await settle()).toBe("a\nb theirs mine\nc");
    expect(conflicts).toEqual([]);
  });

  describe('with conflicts: "ask"', () => {
    const texts = { base: "a\nb\nc", mine: "a\nmine\nc", theirs: "a\ntheirs\nc" };

    it("emits a conflict with both texts; keeping theirs takes the service's text and sends nothing", async () => {
      const { id, doc, conflicts, release, settle } = await conflicted(texts, { conflicts: "ask" });
      release();
      expect(await waitUntil(() => conflicts.length === 1, { maxMs: 5_000 })).toBe(true);
      expect(doc.status).toBe("conflict");
      expect({ theirs: conflicts[0]!.theirs, mine: conflicts[0]!.mine, version: conflicts[0]!.version }).toEqual({ theirs: "a\ntheirs\nc", mine: "a\nmine\nc", version: 3 });

      conflicts[0]!.resolve("theirs");
      expect(await settle()).toBe("a\ntheirs\nc");
      expect((await s.client.history(id)).at(-1)?.version).toBe(3);
    });

    it("keeping mine sends a new diff against the current version", async () => {
      const { conflicts, release, settle } = await conflicted(texts, { conflicts: "ask" });
      release();
      expect(await waitUntil(() => conflicts.length === 1, { maxMs: 5_000 })).toBe(true);

      conflicts[0]!.resolve("mine");
      expect(await settle()).toBe("a\nmine\nc");
    });

    it("merges as by default when no listener is there to ask", async () => {
      const { doc, statuses, release, settle } = await conflicted({ base: "a\nb\nc", mine: "a\nb mine\nc", theirs: "a\nb theirs\nc" }, { conflicts: "ask" }, false);
      release();
      expect(await waitUntil(() => doc.text === "a\nb theirs mine\nc" && doc.status === "synced", { maxMs: 5_000 })).toBe(true);
      expect(await settle()).toBe("a\nb theirs mine\nc");
      expect(statuses.includes("conflict")).toBe(false);
    });
  });
});

describe("two people typing the same thing at one point at once", () => {
  it("keeps both words the service kept once, each person's cursor after their own, so that they go on apart", async () => {
    const id = await document("a\nAnnounce");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    // The cursor of each, mapped through remote changes as the editor maps it (someone typing there).
    const cursors = new Map([[doc, 10], [other, 10]]);
    const changes = new Map<typeof doc, TextChange[]>([[doc, []], [other, []]]);
    for (const d of [doc, other]) d.on("change", (change) => (changes.get(d)!.push(change), cursors.set(d, mapCursor(cursors.get(d)!, change.edits, -1))));
    const type = (d: typeof doc, keys: string) => {
      const at = cursors.get(d)!;
      d.setText(d.text.slice(0, at) + keys + d.text.slice(at));
      cursors.set(d, at + keys.length);
    };
    // The first patch, and the feed after a first answer (a rename, version 2), are held.
    net.hook = (request) => {
      if (request.method === "PATCH") return net.calls("PATCH", "/content").length === 1 ? { kind: "hold", until: gate.promise } : undefined;
      return request.path.includes("/changes") ? { kind: "hold", until: gate.promise } : undefined;
    };
    await s.client.renameDocument(id, { title: "Renamed", expectedVersion: 1 });
    expect(await waitUntil(() => doc.version === 2 && other.version === 2, { maxMs: 5_000 })).toBe(true);

    type(doc, " M");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    type(other, " M");
    await other.whenSynced(5_000);
    gate.open();
    // The service answered 200 to the held patch and kept its line once ("a change already made");
    // the document puts its " M" back and sends it.
    expect(await converged(s.client, id, [doc, other])).toBe("a\nAnnounce M M");
    expect(net.calls("PATCH", "/content").map((call) => (call.body as { ops: unknown }).ops)).toEqual([[replace(1, "Announce M")], [replace(1, "Announce M M")]]);
    // Its own word goes before its cursor; the other sees the word that came later after its own.
    expect(changes.get(doc)!.at(-1)?.edits).toEqual([{ from: 10, to: 10, insert: " M" }]);
    expect(changes.get(other)!.at(-1)?.edits).toEqual([{ from: 12, to: 12, insert: " M" }]);
    expect([cursors.get(doc), cursors.get(other)]).toEqual([14, 12]);

    type(other, "ary");
    type(doc, "ike");
    expect(await converged(s.client, id, [doc, other])).toBe("a\nAnnounce Mary Mike");
  });

  it("sends a blank typed at the end of a line with the next key, or once no key followed for blankHoldMs", async () => {
    const id = await document("a");
    const { doc, net } = await live(id, { blankHoldMs: 300 });
    doc.setText("a ");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length > 0, { maxMs: 100 })).toBe(false);
    expect(doc.status).toBe("syncing");
    doc.setText("a b");
    await doc.whenSynced(5_000);
    doc.setText("a b ");
    await doc.whenSynced(5_000);
    const sent = net.calls("PATCH", "/content").map((call) => (call.body as { ops: unknown }).ops);
    expect(sent).toEqual([[replace(0, "a b")], [replace(0, "a b ")]]);
    // The second waited its hold out, and no longer.
    const [first, second] = net.calls("PATCH", "/content");
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(300);
  });

  it("holds a blank typed between two words for the next key too, and sends a letter at once", async () => {
    const id = await document("Announce soon");
    const { doc, net } = await live(id, { blankHoldMs: 300 });
    doc.setText("Announce  soon");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length > 0, { maxMs: 100 })).toBe(false);
    doc.setText("Announce M soon");
    await doc.whenSynced(5_000);
    expect(net.calls("PATCH", "/content").map((call) => (call.body as { ops: unknown }).ops)).toEqual([[replace(0, "Announce M soon")]]);
  });
});

describe("a live document with a patch in flight", () => {
  it("shows another person's change at once, before its own patch is answered, and keeps both", async () => {
    const id = await document("a\nb\nc");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    const changes: TextChange[] = [];
    doc.on("change", (change) => changes.push(change));
    net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("A\nb\nc");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    other.setText("a\nb\nC");
    await other.whenSynced(5_000);
    expect(await waitUntil(() => doc.text === "A\nb\nC", { maxMs: 5_000 })).toBe(true);
    expect(net.calls("PATCH", "/content")[0]!.settled).toBe(false);
    expect(doc.version).toBe(2);
    expect(changes.at(-1)).toEqual({
      origin: "remote",
      previousText: "A\nb\nc",
      text: "A\nb\nC",
      ops: [replace(2, "C")],
      edits: [{ from: 4, to: 5, insert: "C" }],
    });

    gate.open();
    expect(await converged(s.client, id, [doc, other])).toBe("A\nb\nC");
    // Rebuilt and checked after the 200; nothing reloaded, nothing sent twice.
    expect(net.calls("PATCH", "/content")).toHaveLength(1);
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(1);
    expect(changes.filter((change) => change.origin === "remote")).toHaveLength(1);
  });

  it("merges another person's typing into the line it is typing in, and sends what its 409 left", async () => {
    const id = await document("Announce on");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    const changes: TextChange[] = [];
    doc.on("change", (change) => changes.push(change));
    net.hook = (request) => (request.method === "PATCH" && net.calls("PATCH", "/content").length === 1 ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("Announce on Mo");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    other.setText("Announce on Tu");
    await other.whenSynced(5_000);
    expect(await waitUntil(() => doc.text === "Announce on Tu Mo", { maxMs: 5_000 })).toBe(true);
    // One character edit, " Tu" before " Mo" as the merge placed it: a cursor after "Mo" stays after it.
    expect(changes.at(-1)?.edits).toEqual([{ from: 11, to: 11, insert: " Tu" }]);
    doc.setText("Announce on Tu Monday");

    gate.open();
    expect(await converged(s.client, id, [doc, other])).toBe("Announce on Tu Monday");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body as { baseVersion: number; seq: number; ops: unknown });
    expect(bodies.map(({ baseVersion, seq, ops }) => ({ baseVersion, seq, ops }))).toEqual([
      { baseVersion: 1, seq: 1, ops: [replace(0, "Announce on Mo")] },
      { baseVersion: 2, seq: 2, ops: [replace(0, "Announce on Tu Monday")] },
    ]);
  });

  it("leaves a feed answer that holds its own patch for after the answer, then applies what came after", async () => {
    const id = await document("a\nb\nc");
    const gate = latch();
    const { doc, net } = await live(id);
    // The first attempt is applied but its answer lost; the resend is held.
    net.hook = (request) => {
      if (request.method !== "PATCH") return undefined;
      return net.calls("PATCH", "/content").length === 1 ? { kind: "lose-answer" } : { kind: "hold", until: gate.promise };
    };
    doc.setText("A\nb\nc");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 2, { maxMs: 5_000 })).toBe(true);
    await s.client.patchContent(id, { baseVersion: 2, checksum: checksum("A\nb\nc"), clientId: "other", seq: 1, ops: [{ op: "replace", index: 2, count: 1, lines: ["C"] }] });
    // The feed brings versions 2 (its own) and 3: not applied while the patch is unanswered.
    expect(await waitUntil(() => net.calls("GET", "/changes").some((call) => call.settled), { maxMs: 5_000 })).toBe(true);
    expect({ version: doc.version, text: doc.text }).toEqual({ version: 1, text: "A\nb\nc" });

    gate.open();
    expect(await converged(s.client, id, [doc])).toBe("A\nb\nC");
    // Version 2 is its patch, applied once; 3 the other change.
    expect(doc.version).toBe(3);
    expect(net.calls("PATCH", "/content").map((call) => JSON.stringify(call.body))).toEqual(Array(2).fill(JSON.stringify(net.calls("PATCH", "/content")[0]!.body)));
  });
});
