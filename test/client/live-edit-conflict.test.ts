import { describe, expect, it } from "vitest";
import type { Conflict, OpenOptions, SyncStatus } from "../../src/client/index.js";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged, replaceLine } from "../support/client-harness.js";
import { waitUntil } from "../support/wait-until.js";

// The patch rules of a live document, each against the real service on loopback; faults are
// injected between the client and the service by the recording fetch.
// Here: on a 409. Sending local edits: live-edit-send.test.ts; two people typing at once: live-edit-together.test.ts.

const { s, document, live } = liveDocumentsPerTest();

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
      { baseVersion: 2, seq: 1, ops: [replaceLine(1, "Announce on Monday via blog")] },
      { baseVersion: 3, seq: 2, ops: [replaceLine(1, "Announce on Tuesday via email Monday via blog")] },
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
