import { describe, expect, it } from "vitest";
import type { TextChange } from "../../src/client/index.js";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged, replaceLine } from "../support/client-harness.js";
import { checksum } from "../support/http-expect.js";
import { waitUntil } from "../support/wait-until.js";
import { mapCursor } from "../support/word-convergence.js";

// The patch rules of a live document, each against the real service on loopback; faults are
// injected between the client and the service by the recording fetch.
// Here: two people typing at once. Sending local edits: live-edit-send.test.ts; on a 409: live-edit-conflict.test.ts.

const { s, document, live } = liveDocumentsPerTest();

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
    expect(net.calls("PATCH", "/content").map((call) => (call.body as { ops: unknown }).ops)).toEqual([[replaceLine(1, "Announce M")], [replaceLine(1, "Announce M M")]]);
    // Its own word goes before its cursor; the other sees the word that came later after its own.
    expect(changes.get(doc)!.at(-1)?.edits).toEqual([{ from: 10, to: 10, insert: " M" }]);
    expect(changes.get(other)!.at(-1)?.edits).toEqual([{ from: 12, to: 12, insert: " M" }]);
    expect([cursors.get(doc), cursors.get(other)]).toEqual([14, 12]);

    type(other, "ary");
    type(doc, "ike");
    expect(await converged(s.client, id, [doc, other])).toBe("a\nAnnounce Mary Mike");
  });

  it("leaves the cursor after its own word when the other person's words end alike, so the next key lands in its own", async () => {
    // The first line holds Bob's words in the other order: only the lines Ann lacks tell where his came from.
    const id = await document("Call v Tuesday.\nAnnounce Monda");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    let cursor = 30;
    const remote: TextChange[] = [];
    doc.on("change", (change) => {
      if (change.origin !== "remote") return;
      remote.push(change);
      cursor = mapCursor(cursor, change.edits, -1);
    });
    // Ann's "y v" is held on its way; Bob's " Tuesday v" reaches the service first.
    net.hook = (request) => (request.method === "PATCH" || request.path.includes("/changes") ? { kind: "hold", until: gate.promise } : undefined);
    doc.setText("Call v Tuesday.\nAnnounce Monday v");
    cursor = 33;
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    other.setText("Call v Tuesday.\nAnnounce Monda Tuesday v");
    await other.whenSynced(5_000);
    gate.open();
    expect(await converged(s.client, id, [doc, other])).toBe("Call v Tuesday.\nAnnounce Monday v Tuesday v");
    // The merge kept Ann's word first. " v Tuesday" put in after "Monday" gives the same text, but
    // would leave her cursor after Bob's " v": Bob's words go in after hers, as he typed them.
    expect(remote.map((change) => change.edits)).toEqual([[{ from: 33, to: 33, insert: " Tuesday v" }]]);
    expect(cursor).toBe(33);
    doc.setText(doc.text.slice(0, cursor) + "ia" + doc.text.slice(cursor));
    expect(await converged(s.client, id, [doc, other])).toBe("Call v Tuesday.\nAnnounce Monday via Tuesday v");
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
    expect(sent).toEqual([[replaceLine(0, "a b")], [replaceLine(0, "a b ")]]);
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
    expect(net.calls("PATCH", "/content").map((call) => (call.body as { ops: unknown }).ops)).toEqual([[replaceLine(0, "Announce M soon")]]);
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
      ops: [replaceLine(2, "C")],
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
      { baseVersion: 1, seq: 1, ops: [replaceLine(0, "Announce on Mo")] },
      { baseVersion: 2, seq: 2, ops: [replaceLine(0, "Announce on Tu Monday")] },
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
