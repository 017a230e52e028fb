import { describe, expect, it } from "vitest";
import { createDocument } from "../support/http-expect.js";
import { appPerTest } from "../support/app-per-test.js";
import { buildTestApp } from "../support/test-app.js";
import {
  DOCUMENTS,
  RULES_TEXT as TEXT,
  checksumOf,
  contentUrl,
  expectAccepted,
  expectProblem,
  insert,
  patchContent,
  readDocument,
  readHistory,
  remove,
  replace,
  rulesBody as body,
} from "../support/content-patch.js";

/* PATCH …/content, patches applied: rules 1 and 7 (docs/interface.md#patch-content), the empty text, milestones and the sender. */

const t = appPerTest();

describe("PATCH /documents/{documentId}/content: rule 1, a current base", () => {
  it("applies the diff and answers 200 with the next version and an empty opsSinceBase", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([replace(1, 1, "BETA"), insert(3, "delta")]));

    expectAccepted(response, 2, []);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 2, content: "alpha\nBETA\ngamma\ndelta" });
  });

  it("applies inserts, replaces and deletes of one list against the base lines", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "a\nb\nc\nd\ne" })).id;

    const response = await patchContent(t.app, id, {
      ...body([insert(0, "start"), remove(0, 1), replace(2, 2, "C", "D", "D2"), insert(5, "end")]),
      checksum: checksumOf("a\nb\nc\nd\ne"),
    });

    expectAccepted(response, 2, []);
    expect((await readDocument(t.app, id)).content).toBe("start\nb\nC\nD\nD2\ne\nend");
  });

  it("answers with the next version after a PUT, a rename and earlier patches", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "x" })).id;
    await t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title: "Notes", content: TEXT } });
    await t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title: "Renamed", expectedVersion: 2 } });

    expectAccepted(await patchContent(t.app, id, body([replace(0, 1, "A")], { baseVersion: 3 })), 4, []);
    expectAccepted(await patchContent(t.app, id, body([remove(2, 1)], { baseVersion: 4, checksum: checksumOf("A\nbeta\ngamma"), seq: 2 })), 5, []);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 5, title: "Renamed", content: "A\nbeta" });
  });

});

describe("PATCH /documents/{documentId}/content: the empty text is one empty line", () => {
  const EMPTY = checksumOf("");

  it("turns a text whose every line was deleted into the empty text", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    expectAccepted(await patchContent(t.app, id, body([remove(0, 3)])), 2, []);
    expect((await readDocument(t.app, id)).content).toBe("");
  });

  it("lets a replace of line 0 fill the empty text left by deleting every line", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([remove(0, 3)])), 2, []);

    const response = await patchContent(t.app, id, body([replace(0, 1, "x")], { baseVersion: 2, checksum: EMPTY, seq: 2 }));

    expectAccepted(response, 3, []);
    expect((await readDocument(t.app, id)).content).toBe("x");
  });

  it("treats a created empty text and one left by deleting every line alike", async () => {
    const created = (await createDocument(t.app, { title: "Notes", content: "" })).id;
    const emptied = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, emptied, body([remove(0, 3)])), 2, []);

    const fromCreated = await patchContent(t.app, created, body([insert(0, "x")], { checksum: EMPTY, seq: 2 }));
    const fromEmptied = await patchContent(t.app, emptied, body([insert(0, "x")], { baseVersion: 2, checksum: EMPTY, seq: 2 }));

    expectAccepted(fromCreated, 2, []);
    expectAccepted(fromEmptied, 3, []);
    expect((await readDocument(t.app, created)).content).toBe("x\n");
    expect((await readDocument(t.app, emptied)).content).toBe("x\n");
  });

  it("records the deletion of every line so that the stored history rebuilds the same text after a restart", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([remove(0, 3)], { milestone: true })), 2, []);
    expectAccepted(await patchContent(t.app, id, body([insert(0, "x")], { baseVersion: 2, checksum: EMPTY, seq: 2 })), 3, []);
    const served = (await readDocument(t.app, id)).content;

    // A second app on the same store has an empty head cache: it rebuilds the text from the store.
    const fresh = await buildTestApp({ store: t.store, clock: t.clock });
    try {
      expect((await readDocument(fresh.app, id)).content).toBe(served);
      expect((await t.store.reads(id).version(3))?.checksum).toBe(checksumOf(served));
    } finally {
      await fresh.app.close();
    }
  });

  it("answers a stale client the deletion of every line as a replace by the one empty line", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([remove(0, 3)])), 2, []);

    const response = await patchContent(t.app, id, body([insert(0, "top")], { clientId: "client-b" }));

    expectAccepted(response, 3, [replace(0, 3, "")]);
    expect((await readDocument(t.app, id)).content).toBe("top\n");
  });
});

describe("PATCH /documents/{documentId}/content: milestones and the sender", () => {
  it("makes the new version a milestone, which GET …/history shows with its text, clientId and displayName", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    t.clock.advance(1000);

    const response = await patchContent(t.app, id, body([replace(0, 1, "A")], { milestone: true, clientId: "c-7f3a", displayName: "Ann" }));
    t.clock.advance(1000);
    expectAccepted(await patchContent(t.app, id, body([replace(1, 1, "B")], { baseVersion: 2, checksum: checksumOf("A\nbeta\ngamma"), seq: 2 })), 3);
    t.clock.advance(1000);
    expectAccepted(await patchContent(t.app, id, body([replace(2, 1, "C")], { baseVersion: 3, checksum: checksumOf("A\nB\ngamma"), seq: 3 })), 4);

    expectAccepted(response, 2, []);
    const created = "2026-01-05T10:00:00.000Z";
    expect(await readHistory(t.app, id)).toEqual([
      { documentId: id, version: 1, title: "Notes", content: TEXT, changeType: "CREATED", timestamp: created },
      {
        documentId: id,
        version: 2,
        title: "Notes",
        content: "A\nbeta\ngamma",
        changeType: "UPDATED",
        timestamp: "2026-01-05T10:00:01.000Z",
        clientId: "c-7f3a",
        displayName: "Ann",
      },
      // Version 3 is a sync version: left out. The newest state is always listed.
      {
        documentId: id,
        version: 4,
        title: "Notes",
        content: "A\nB\nC",
        changeType: "UPDATED",
        timestamp: "2026-01-05T10:00:03.000Z",
        clientId: "client-a",
      },
    ]);
  });

  it("records a milestone with the text unchanged for an empty op list with milestone: true", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([replace(0, 1, "A")])), 2);

    const response = await patchContent(t.app, id, body([], { baseVersion: 2, checksum: checksumOf("A\nbeta\ngamma"), seq: 2, milestone: true, displayName: "Bo" }));

    expectAccepted(response, 3, []);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 3, content: "A\nbeta\ngamma" });
    const history = await readHistory(t.app, id);
    expect(history.map((entry) => [entry.version, entry.content, entry.clientId, entry.displayName])).toEqual([
      [1, TEXT, undefined, undefined],
      [3, "A\nbeta\ngamma", "client-a", "Bo"],
    ]);
  });

  it("records a milestone for an empty op list with milestone: true on a stale base, answering the foreign ops", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([replace(0, 1, "A")])), 2);

    const response = await patchContent(t.app, id, body([], { clientId: "client-b", milestone: true }));

    expectAccepted(response, 3, [replace(0, 1, "A")]);
    expect((await readHistory(t.app, id)).map((entry) => entry.version)).toEqual([1, 3]);
  });

  it("answers 400 for an empty op list without milestone, and writes nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    expectProblem(await patchContent(t.app, id, body([])), "invalid-request", contentUrl(id), "ops must not be empty unless milestone is true");
    expectProblem(await patchContent(t.app, id, body([], { milestone: false })), "invalid-request", contentUrl(id), "ops must not be empty unless milestone is true");
    expect((await readDocument(t.app, id)).version).toBe(1);
  });
});

describe("PATCH /documents/{documentId}/content: rule 7, content and title patches of one document are serialized", () => {
  it("gives concurrent content and title patches dense versions and a consistent final state", async () => {
    const lines = Array.from({ length: 8 }, (_, k) => `line ${k}`);
    const id = (await createDocument(t.app, { title: "Notes", content: lines.join("\n") })).id;
    const base = { baseVersion: 1, checksum: checksumOf(lines.join("\n")) };

    const responses = await Promise.all([
      t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title: "Renamed", expectedVersion: 1 } }),
      ...lines.map((_, k) => patchContent(t.app, id, { ...base, clientId: `client-${k}`, seq: 1, ops: [replace(k, 1, `edit ${k}`)] })),
    ]);

    const statuses = responses.map((response) => response.statusCode);
    // The rename is based on version 1: it wins only when it runs first, else it is a 409 (never a lost version).
    expect([200, 409]).toContain(statuses[0]);
    expect(statuses.slice(1)).toEqual(lines.map(() => 200));
    const renamed = statuses[0] === 200;
    const versions = responses.map((response) => response.json<{ version?: number }>().version).filter((version) => version !== undefined);
    expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: lines.length + (renamed ? 1 : 0) }, (_, k) => k + 2));

    const head = renamed ? lines.length + 2 : lines.length + 1;
    expect(await readDocument(t.app, id)).toMatchObject({
      version: head,
      title: renamed ? "Renamed" : "Notes",
      content: lines.map((_, k) => `edit ${k}`).join("\n"),
    });
    const stored = await t.store.reads(id).versions(0, head);
    expect(stored.map((record) => record.version)).toEqual(Array.from({ length: head }, (_, k) => k + 1));
  });
});
