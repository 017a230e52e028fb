import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { ANN, DOCUMENTS, T0, UNKNOWN_ID, at, createDocument, documentRequests, expectJson, expectProblem, historyEntry, invalid, notFound } from "../support/http-expect.js";

/* GET /documents/{documentId}/history: what it lists and leaves out. Restoring and rolling back: documents-restore.test.ts. */

const t = appPerTest();

const { history, put, remove, patchLine } = documentRequests(t);

describe("GET /documents/{documentId}/history", () => {
  it("answers 200 with the CREATED entry of a new document", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a\nb" });

    expectJson(await history(created.id), 200, [historyEntry(created.id, 1, "CREATED", "Plan", "a\nb", T0)]);
  });

  it("lists every PUT as a milestone with its full text, oldest first", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    t.clock.advance(1000);
    await put(created.id, "Plan", "a\nb");
    t.clock.advance(1000);
    await put(created.id, "Plan B", "c");

    expectJson(await history(created.id), 200, [
      historyEntry(created.id, 1, "CREATED", "Plan", "a", T0),
      historyEntry(created.id, 2, "UPDATED", "Plan", "a\nb", at(1000)),
      historyEntry(created.id, 3, "UPDATED", "Plan B", "c", at(2000)),
    ]);
  });

  it("still answers 200 for a deleted document, ending with DELETED and the last title and content", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    t.clock.advance(1000);
    await put(created.id, "Final plan", "b");
    t.clock.advance(1000);
    await remove(created.id);

    expectJson(await history(created.id), 200, [
      historyEntry(created.id, 1, "CREATED", "Plan", "a", T0),
      historyEntry(created.id, 2, "UPDATED", "Final plan", "b", at(1000)),
      historyEntry(created.id, 3, "DELETED", "Final plan", "b", at(2000)),
    ]);
  });

  it("leaves sync versions out but always shows the newest state", async () => {
    const created = await createDocument(t.app, { title: "Live", content: "a" });
    t.clock.advance(1000);
    expect((await patchLine(created.id, 1, "a", 1, "b")).statusCode).toBe(200);
    t.clock.advance(1000);
    expect((await patchLine(created.id, 2, "b", 2, "c")).statusCode).toBe(200);

    expectJson(await history(created.id), 200, [
      historyEntry(created.id, 1, "CREATED", "Live", "a", T0),
      historyEntry(created.id, 3, "UPDATED", "Live", "c", at(2000), ANN),
    ]);
  });

  it("shows a milestone patch and leaves out the sync versions before it", async () => {
    const created = await createDocument(t.app, { title: "Live", content: "a" });
    await patchLine(created.id, 1, "a", 1, "b");
    await patchLine(created.id, 2, "b", 2, "c", true);
    await patchLine(created.id, 3, "c", 3, "d");
    await patchLine(created.id, 4, "d", 4, "e");

    expectJson(await history(created.id), 200, [
      historyEntry(created.id, 1, "CREATED", "Live", "a", T0),
      historyEntry(created.id, 3, "UPDATED", "Live", "c", T0, ANN),
      historyEntry(created.id, 5, "UPDATED", "Live", "e", T0, ANN),
    ]);
  });

  it("promotes the version before a write pause to a milestone", async () => {
    const created = await createDocument(t.app, { title: "Live", content: "a" });
    await patchLine(created.id, 1, "a", 1, "b");
    t.clock.advance(300_000);
    await patchLine(created.id, 2, "b", 2, "c");

    expectJson(await history(created.id), 200, [
      historyEntry(created.id, 1, "CREATED", "Live", "a", T0),
      historyEntry(created.id, 2, "UPDATED", "Live", "b", T0, ANN),
      historyEntry(created.id, 3, "UPDATED", "Live", "c", at(300_000), ANN),
    ]);
  });

  it("answers 404 for an unknown UUID", async () => {
    const url = `${DOCUMENTS}/${UNKNOWN_ID}/history`;

    expectProblem(await t.app.inject({ method: "GET", url }), notFound(UNKNOWN_ID, url));
  });

  it("answers 400 for a malformed UUID", async () => {
    const url = `${DOCUMENTS}/abc/history`;

    expectProblem(await t.app.inject({ method: "GET", url }), invalid('params.documentId: must match format "uuid"', url));
  });
});
