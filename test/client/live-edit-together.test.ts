import { describe, expect, it } from "vitest";
import type { LiveDocument, TextChange } from "../../src/client/index.js";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged, replaceLine } from "../support/client-harness.js";
import { checksum } from "../support/http-expect.js";
import { waitUntil } from "../support/wait-until.js";

// Two people editing one line at once, each live document against the real service on loopback,
// edits handed over as an editor hands them (the change at the cursor, not a whole text), the order
// of arrival forced by holding requests. The merge rule: docs/editing-protocol.md, "The merge rule".
// Sending local edits: live-edit-send.test.ts; on a 409: live-edit-conflict.test.ts.

const { s, document, live } = liveDocumentsPerTest();

interface Typist {
  cursor: number;
  type(keys: string, from?: number): void;
}

/** A person at a cursor: types there, the cursor following remote changes as the editor binding moves it. */
function typist(doc: LiveDocument, cursor: number): Typist {
  const person: Typist = {
    cursor,
    /** Types `keys` one by one at the cursor (or replaces `from..cursor` with the first). */
    type(keys: string, from = person.cursor) {
      doc.edit([{ from, to: person.cursor, insert: keys[0]! }]);
      person.cursor = from + 1;
      for (const key of keys.slice(1)) {
        doc.edit([{ from: person.cursor, to: person.cursor, insert: key }]);
        person.cursor++;
      }
    },
  };
  doc.on("change", (change: TextChange) => (person.cursor = change.mapCursor(person.cursor)));
  return person;
}

/** Ann's first patch and feed held until Bob's change is in: Ann's patch then meets it by a 409. */
async function annAfterBob(content: string) {
  const id = await document(content);
  const gate = latch();
  const ann = await live(id);
  const bob = (await live(id)).doc;
  ann.net.hook = (request) => (request.method === "PATCH" && ann.net.calls("PATCH", "/content").length === 1) || request.path.includes("/changes") ? { kind: "hold", until: gate.promise } : undefined;
  return { id, ann, bob, release: () => gate.open() };
}

describe("two people in one line", () => {
  it("replacing a line while another types in it: the deleted words never come back, both texts are whole", async () => {
    const { id, ann, bob, release } = await annAfterBob("first\nsecond line x1 y2 z3\nthird");
    const annTyping = typist(ann.doc, 6 + 20);
    annTyping.type("replaced by Ann", 6);
    expect(await waitUntil(() => ann.net.calls("PATCH", "/content").length === 1)).toBe(true);
    typist(bob, 12).type("BOB");
    await bob.whenSynced(5_000);
    release();
    const text = await converged(s.client, id, [ann.doc, bob]);
    expect(text).toBe("first\nreplaced by AnnBOB\nthird");
    // Ann goes on typing at her cursor: after her own words, before Bob's.
    annTyping.type("!");
    expect(await converged(s.client, id, [ann.doc, bob])).toBe("first\nreplaced by Ann!BOB\nthird");
  });

  it("two people typing at one point: each word stays in one piece, the one who goes on after their own text first", async () => {
    const { id, ann, bob, release } = await annAfterBob("Announce on");
    const annTyping = typist(ann.doc, 11);
    annTyping.type(" Mon");
    expect(await waitUntil(() => ann.net.calls("PATCH", "/content").length === 1)).toBe(true);
    const bobTyping = typist(bob, 11);
    bobTyping.type(" Tue");
    await bob.whenSynced(5_000);
    release();
    // Bob's reached the service first: Ann's goes after it.
    expect(await converged(s.client, id, [ann.doc, bob])).toBe("Announce on Tue Mon");
    annTyping.type("day");
    bobTyping.type("sday");
    expect(await converged(s.client, id, [ann.doc, bob])).toBe("Announce on Tuesday Monday");
  });

  it("a word replaced while another types inside it: both words whole", async () => {
    const { id, ann, bob, release } = await annAfterBob("the quick brown fox jumps");
    typist(ann.doc, 19).type("cat", 4);
    expect(await waitUntil(() => ann.net.calls("PATCH", "/content").length === 1)).toBe(true);
    typist(bob, 13).type("XYZ");
    await bob.whenSynced(5_000);
    release();
    expect(await converged(s.client, id, [ann.doc, bob])).toBe("the catXYZ jumps");
  });

  it("two people pressing Enter after one line and typing lines: each person's lines stay together", async () => {
    const { id, ann, bob, release } = await annAfterBob("L\nX");
    const annTyping = typist(ann.doc, 1);
    annTyping.type("\na1");
    expect(await waitUntil(() => ann.net.calls("PATCH", "/content").length === 1)).toBe(true);
    const bobTyping = typist(bob, 1);
    bobTyping.type("\nb1");
    await bob.whenSynced(5_000);
    release();
    expect(await converged(s.client, id, [ann.doc, bob])).toBe("L\nb1\na1\nX");
    for (const line of ["2", "3"]) {
      annTyping.type(`\na${line}`);
      bobTyping.type(`\nb${line}`);
    }
    expect(await converged(s.client, id, [ann.doc, bob])).toBe("L\nb1\nb2\nb3\na1\na2\na3\nX");
  });

  it("a line deleted while another puts a line in after it: the new line stays a line of its own", async () => {
    const { id, ann, bob, release } = await annAfterBob("A\nK\nB");
    ann.doc.edit([{ from: 2, to: 4, insert: "" }]);
    expect(await waitUntil(() => ann.net.calls("PATCH", "/content").length === 1)).toBe(true);
    typist(bob, 3).type("\nnew");
    await bob.whenSynced(5_000);
    release();
    expect(await converged(s.client, id, [ann.doc, bob])).toBe("A\nnew\nB");
  });
});

describe("a live document with a patch in flight", () => {
  it("takes another person's change in with its patch's answer, and keeps both", async () => {
    const id = await document("a\nb\nc");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    const changes: TextChange[] = [];
    doc.on("change", (change) => changes.push(change));
    net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: gate.promise } : undefined);

    doc.edit([{ from: 0, to: 1, insert: "A" }]);
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    other.edit([{ from: 4, to: 5, insert: "C" }]);
    await other.whenSynced(5_000);
    gate.open();
    expect(await converged(s.client, id, [doc, other])).toBe("A\nb\nC");
    // The answer's opsSinceBase brought it, one character change; nothing reloaded, nothing sent twice.
    expect(changes.map(({ edits, version }) => ({ edits, version }))).toEqual([{ edits: [{ from: 4, to: 5, insert: "C" }], version: 3 }]);
    expect(net.calls("PATCH", "/content")).toHaveLength(1);
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(1);
  });

  it("merges another person's typing into the line it is typing in after its 409, and sends what is left", async () => {
    const id = await document("Announce on");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    net.hook = (request) => (request.method === "PATCH" && net.calls("PATCH", "/content").length === 1 ? { kind: "hold", until: gate.promise } : undefined);

    const ann = typist(doc, 11);
    ann.type(" Mo");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    typist(other, 11).type(" Tu");
    await other.whenSynced(5_000);
    ann.type("nday");
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
