import { describe, expect, it } from "vitest";
import type { TextChange } from "../../src/client/index.js";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged } from "../support/client-harness.js";
import { checksum } from "../support/http-expect.js";
import { waitUntil } from "../support/wait-until.js";

// The feed loop of a live document against the real service on loopback: remote changes, the
// full-content answer after compaction, deletion, restore, rollback and rename, and close().

const RETENTION_MS = 60_000;
const served = liveDocumentsPerTest({ config: (config) => (config.history.retentionSeconds = RETENTION_MS / 1000) });
const { s, document } = served;
const live = (id: string) => served.live(id);

describe("the feed loop of a live document", () => {
  it("applies a remote change and tells the editor with the line ops and the character edits to map cursors through", async () => {
    const id = await document("a\nb");
    const { doc } = await live(id);
    const changes: TextChange[] = [];
    doc.on("change", (change) => changes.push(change));

    await s.client.replaceDocument(id, { title: "T", content: "a\nb\nc" });
    expect(await converged(s.client, id, [doc])).toBe("a\nb\nc");
    expect(changes.map(({ origin, edits, version }) => ({ origin, edits, version }))).toEqual([{ origin: "remote", edits: [{ from: 3, to: 3, insert: "\nc" }], version: 2 }]);
    expect(changes[0]!.changes.toJSON()).toEqual([3, [0, "", "c"]]);

    // A change inside a line: the edit is the characters that changed, not the whole line.
    await s.client.replaceDocument(id, { title: "T", content: "a\nx b\nc" });
    expect(await converged(s.client, id, [doc])).toBe("a\nx b\nc");
    expect(changes.at(-1)?.edits).toEqual([{ from: 2, to: 2, insert: "x " }]);
  });

  it("takes the changes its patch's answer brings, asks the feed on from its confirmed version, and drops an answer from before it", async () => {
    const id = await document("a\nb\nc");
    const { doc, net } = await live(id);
    const sinceOf = () => net.calls("GET", "/changes").map((call) => Number(new URL(call.path, "http://x").searchParams.get("since")));
    const other = (version: number, text: string, lines: string[]) =>
      s.client.patchContent(id, { baseVersion: version, checksum: checksum(text), clientId: "other", seq: version, ops: [{ op: "replace", index: 0, count: 1, lines }] });

    // The first poll answers version 2; the next one is held (not sent) while the rest happens.
    const gate = latch();
    net.hook = (request) =>
      request.method === "GET" && request.path.includes("/changes") && net.calls("GET", "/changes").length > 1 ? { kind: "hold", until: gate.promise } : undefined;
    await other(1, "a\nb\nc", ["x"]);
    expect(await waitUntil(() => doc.version === 2, { maxMs: 5_000 })).toBe(true);
    await s.client.patchContent(id, { baseVersion: 2, checksum: checksum("x\nb\nc"), clientId: "other-2", seq: 1, ops: [{ op: "replace", index: 1, count: 1, lines: ["y"] }] });
    // Its own patch rests on version 2 and lands as version 4: its answer brings the foreign version 3.
    doc.setText("x\nb\nmine");
    expect(await waitUntil(() => doc.version === 4, { maxMs: 5_000 })).toBe(true);
    expect(doc.text).toBe("x\ny\nmine");
    await other(4, "x\ny\nmine", ["z"]);
    gate.open();

    expect(await converged(s.client, id, [doc])).toBe("z\ny\nmine");
    // 1, then 2 (held, answered from 2 to 5: a diff from before its own version, only its events
    // are taken), then 4, its confirmed version.
    expect(await waitUntil(() => sinceOf().length >= 3, { maxMs: 5_000 })).toBe(true);
    expect(sinceOf().slice(0, 3)).toEqual([1, 2, 4]);
  });

  it("replaces the confirmed text with a full-content answer when its version was compacted", async () => {
    const id = await document("a\nb");
    const gate = latch();
    const { doc, net } = await live(id);
    let contentAnswers = 0;
    const observe = {
      kind: "edit-answer" as const,
      change: (body: unknown) => {
        if (body && typeof body === "object" && "content" in body) contentAnswers++;
        return body;
      },
    };
    // The poll already waiting answers the first change; the next one is held while the rest happens.
    net.hook = (request) =>
      request.method === "GET" && request.path.includes("/changes") && net.calls("GET", "/changes").length > 1
        ? { kind: "hold", until: gate.promise, then: observe }
        : undefined;
    // Sync versions (content patches): their ops go at compaction, and with them the exact diff from version 2.
    const texts = ["a\nb", "a\nb\nc", "x\nb\nc", "x\ny\nc", "x\ny\nz"];
    for (let version = 1; version < texts.length; version++) {
      const ops = [{ op: "replace" as const, index: 0, count: texts[version - 1]!.split("\n").length, lines: texts[version]!.split("\n") }];
      await s.client.patchContent(id, { baseVersion: version, checksum: checksum(texts[version - 1]!), clientId: "other", seq: version, ops });
      if (version === 1) expect(await waitUntil(() => doc.version === 2, { maxMs: 5_000 })).toBe(true);
    }
    s.t.clock.advance(RETENTION_MS + 1);
    await s.t.services.compactor.runOnce();
    gate.open();

    expect(await converged(s.client, id, [doc])).toBe("x\ny\nz");
    expect(contentAnswers).toBeGreaterThanOrEqual(1);
  });

  it("turns read-only on DELETED (an edit racing it kept, not sent), and takes the restored text on RESTORED", async () => {
    const id = await document("a");
    const { doc, net } = await live(id);
    const seen: string[] = [];
    doc.on("deleted", () => seen.push("deleted"));
    doc.on("restored", () => seen.push("restored"));
    doc.on("error", (error) => seen.push(error.message));

    await s.client.deleteDocument(id);
    expect(await waitUntil(() => doc.deleted, { maxMs: 5_000 })).toBe(true);
    // An edit that races the deletion is kept, not sent; a milestone is refused.
    doc.setText("edited while deleted");
    expect(doc.text).toBe("edited while deleted");
    await expect(doc.saveMilestone()).rejects.toThrow("the document is deleted: it is read-only until it is restored");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(net.calls("PATCH", "/content")).toEqual([]);

    await s.client.restore(id);
    expect(await converged(s.client, id, [doc])).toBe("edited while deleted");
    expect(doc.deleted).toBe(false);
    expect(seen).toEqual(["deleted", "restored"]);
  });

  it("reloads on ROLLED_BACK and carries a local edit over onto the rolled-back text", async () => {
    const id = await document("a\nb\nc");
    await s.client.replaceDocument(id, { title: "T", content: "a\nB\nc" });
    const { doc } = await live(id);

    await s.client.restore(id, 1);
    expect(await converged(s.client, id, [doc])).toBe("a\nb\nc");
    doc.setText("a\nb\nc\nd");
    expect(await converged(s.client, id, [doc])).toBe("a\nb\nc\nd");
  });

  it("shows a rename from elsewhere as a title event, and renames with the current version, retrying once on a 409", async () => {
    const id = await document("a");
    const { doc, net } = await live(id);
    const titles: string[] = [];
    doc.on("title", (title) => titles.push(title));

    await s.client.renameDocument(id, { title: "Elsewhere", expectedVersion: 1 });
    expect(await waitUntil(() => titles.length === 1, { maxMs: 5_000 })).toBe(true);
    // The feed is held, so the document's version is stale when it renames: one 409, then the retry.
    const gate = latch();
    net.hook = (request) => (request.method === "GET" && request.path.includes("/changes") ? { kind: "hold", until: gate.promise } : undefined);
    await s.client.replaceDocument(id, { title: "Elsewhere", content: "b" });
    await doc.rename("Here");
    gate.open();
    expect(titles).toEqual(["Elsewhere", "Here"]);
    expect(net.calls("PATCH", "/title").map((call) => call.body)).toEqual([
      { title: "Here", expectedVersion: 2 },
      { title: "Here", expectedVersion: 3 },
    ]);
    expect((await s.client.getDocument(id)).title).toBe("Here");
  });

  it("catches up on the events of versions a patch's answer jumped over, like a rename between its base and it", async () => {
    const id = await document("a\nb");
    const { doc, net } = await live(id);
    const titles: string[] = [];
    doc.on("title", (title) => titles.push(title));
    const patchGate = latch();
    let feedDown = true;
    net.hook = (request) => {
      if (request.method === "PATCH") return { kind: "hold", until: patchGate.promise };
      return feedDown && request.path.includes("/changes") ? { kind: "fail-before" } : undefined;
    };
    // The poll already waiting brings version 2; every later poll fails until the end.
    await s.client.replaceDocument(id, { title: "T", content: "a\nb\nc" });
    expect(await waitUntil(() => doc.version === 2, { maxMs: 5_000 })).toBe(true);
    doc.setText("a\nB\nc");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    await s.client.renameDocument(id, { title: "Renamed", expectedVersion: 2 });
    patchGate.open();
    // The answer is version 4: the rename (3) lies between the patch's base and it, unseen so far.
    expect(await waitUntil(() => doc.version === 4, { maxMs: 5_000 })).toBe(true);
    expect(titles).toEqual([]);
    feedDown = false;

    expect(await converged(s.client, id, [doc])).toBe("a\nB\nc");
    expect(titles).toEqual(["Renamed"]);
  });

  it("is no longer offline as soon as a poll gets through after failing: the polls after a failure ask with wait=0", async () => {
    const id = await document("a");
    const { doc, net } = await served.live(id, { waitSeconds: 20 });
    let feedDown = true;
    net.hook = (request) => (feedDown && request.path.includes("/changes") && net.calls("GET", "/changes").length > 1 ? { kind: "fail-before" } : undefined);
    // The first poll (20 s) answers this change; the polls after it fail.
    await s.client.replaceDocument(id, { title: "T", content: "a\nb" });
    expect(await waitUntil(() => doc.status === "offline", { maxMs: 5_000 })).toBe(true);
    feedDown = false;
    // Nothing new: a long poll of 20 s would keep it offline for the whole test.
    expect(await waitUntil(() => doc.status === "synced" && net.calls("GET", "/changes").at(-1)?.path.includes("wait=20") === true, { maxMs: 3_000 })).toBe(true);
    const waits = net.calls("GET", "/changes").map((call) => new URL(call.path, "http://x").searchParams.get("wait"));
    expect([waits.slice(0, 2), waits.slice(-2)]).toEqual([["20", "20"], ["0", "20"]]);
    expect(waits.slice(2, -2).every((wait) => wait === "0")).toBe(true);
    expect(doc.text).toBe("a\nb");
  });

  it("records a milestone with saveMilestone", async () => {
    const id = await document("a");
    const { doc, net } = await live(id);
    doc.setText("b");
    await doc.saveMilestone();
    expect(net.calls("PATCH", "/content").some((call) => (call.body as { milestone?: boolean }).milestone === true)).toBe(true);
    const history = await s.client.history(id);
    expect(history.map((entry) => [entry.version, entry.content])).toContainEqual([doc.version, "b"]);
    // With nothing unsent the milestone is a patch of its own: once it resolves, the document
    // stands on the version it made (what the history panel names "Saved version").
    await doc.whenSynced(5_000);
    const before = doc.version;
    await doc.saveMilestone();
    expect([doc.version, (await s.client.history(id)).at(-1)?.version]).toEqual([before + 1, before + 1]);
  });

  it("close() aborts every request and stops every loop", async () => {
    const id = await document("a");
    const opened = await served.live(id, { waitSeconds: 20 });
    const { doc, net } = opened;
    expect(await waitUntil(() => net.calls("GET", "/changes").length === 1)).toBe(true);
    doc.setText("b");
    doc.close();
    await expect(doc.whenSynced()).rejects.toThrow("the live document was closed");
    await expect(doc.saveMilestone()).rejects.toThrow("the live document was closed");
    // The long poll (20 s) and the patch end at once, aborted.
    expect(await waitUntil(() => net.sent.every((request) => request.settled), { maxMs: 1_000 })).toBe(true);
    expect(net.calls("GET", "/changes").every((request) => request.signal?.aborted === true)).toBe(true);
    const count = net.sent.length;
    // The retry waits are 5 to 50 ms: a loop still running would have sent again by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(net.sent.length).toBe(count);
  });
});
