import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { DOCUMENTS, T0, UNKNOWN_ID, at, createDocument, documentRequests, expectDocument, expectJson, expectProblem, historyEntry, invalid, notFound, type DocumentJson } from "../support/http-expect.js";

/* POST /documents/{documentId}/restore: a deleted document brought back, a living one rolled back. The history: documents-history.test.ts. */

const t = appPerTest();

const { history, put, remove, patchLine } = documentRequests(t);

function restore(id: string, body?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: "POST", url: `${DOCUMENTS}/${id}/restore`, ...(body === undefined ? {} : { payload: body as object }) });
}

describe("POST /documents/{documentId}/restore", () => {
  /** A document at version 2 ("Plan B", "two"), deleted at version 3 one second after T0. */
  async function deletedDocument(): Promise<DocumentJson> {
    const created = await createDocument(t.app, { title: "Plan", content: "one" });
    await put(created.id, "Plan B", "two");
    t.clock.advance(1000);
    await remove(created.id);
    t.clock.advance(1000);
    return created;
  }

  it("brings a deleted document back without a body: RESTORED, same UUID, the state before deletion", async () => {
    const { id } = await deletedDocument();

    const response = await restore(id);

    const expected = { id, title: "Plan B", content: "two", version: 4, createdAt: T0, updatedAt: at(2000) };
    expectJson(response, 200, expected);
    await expectDocument(t.app, expected);
    expectJson(await history(id), 200, [
      historyEntry(id, 1, "CREATED", "Plan", "one", T0),
      historyEntry(id, 2, "UPDATED", "Plan B", "two", T0),
      historyEntry(id, 3, "DELETED", "Plan B", "two", at(1000)),
      historyEntry(id, 4, "RESTORED", "Plan B", "two", at(2000)),
    ]);
  });

  it("takes an empty body sent as application/json as no body", async () => {
    const { id } = await deletedDocument();

    const response = await t.app.inject({
      method: "POST",
      url: `${DOCUMENTS}/${id}/restore`,
      headers: { "content-type": "application/json" },
      payload: "",
    });

    expectJson(response, 200, { id, title: "Plan B", content: "two", version: 4, createdAt: T0, updatedAt: at(2000) });
  });

  it("takes an object without version like no body", async () => {
    const { id } = await deletedDocument();

    expectJson(await restore(id, {}), 200, { id, title: "Plan B", content: "two", version: 4, createdAt: T0, updatedAt: at(2000) });
  });

  it("restores a deleted document to a named version as RESTORED", async () => {
    const { id } = await deletedDocument();

    expectJson(await restore(id, { version: 1 }), 200, { id, title: "Plan", content: "one", version: 4, createdAt: T0, updatedAt: at(2000) });
    expect((await history(id)).json<{ changeType: string }[]>().at(-1)?.changeType).toBe("RESTORED");
  });

  it("rolls a living document back to a version's title and content as ROLLED_BACK", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "one" });
    t.clock.advance(1000);
    await put(created.id, "Plan B", "two\nlines");
    t.clock.advance(1000);

    const response = await restore(created.id, { version: 1 });

    const expected = { id: created.id, title: "Plan", content: "one", version: 3, createdAt: T0, updatedAt: at(2000) };
    expectJson(response, 200, expected);
    await expectDocument(t.app, expected);
    expectJson(await history(created.id), 200, [
      historyEntry(created.id, 1, "CREATED", "Plan", "one", T0),
      historyEntry(created.id, 2, "UPDATED", "Plan B", "two\nlines", at(1000)),
      historyEntry(created.id, 3, "ROLLED_BACK", "Plan", "one", at(2000)),
    ]);
  });

  it("rolls back to a sync version, rebuilding its text", async () => {
    const created = await createDocument(t.app, { title: "Live", content: "a" });
    await patchLine(created.id, 1, "a", 1, "b");
    await patchLine(created.id, 2, "b", 2, "c");

    expectJson(await restore(created.id, { version: 2 }), 200, {
      id: created.id,
      title: "Live",
      content: "b",
      version: 4,
      createdAt: T0,
      updatedAt: T0,
    });
  });

  describe("after compaction", () => {
    /** A day and a second after the patches: past the default retention period. */
    const AFTER_RETENTION_MS = 86_401_000;

    /**
     * A document with 40 sync versions (v2..v41, line 0 = "line 1".."line 40"); then the clock moves past
     * the retention period and the service's compaction runs, as far as it goes.
     */
    async function compactedDocument(): Promise<DocumentJson> {
      const created = await createDocument(t.app, { title: "Busy", content: "line 0\nend" });
      for (let seq = 1; seq <= 40; seq++) {
        const response = await patchLine(created.id, seq, `line ${seq - 1}\nend`, seq, `line ${seq}`);
        expect(response.statusCode).toBe(200);
      }
      t.clock.advance(AFTER_RETENTION_MS);
      const compaction = await t.services.compactor.runOnce();
      expect(compaction.versions).toBeGreaterThan(0);
      return created;
    }

    it("answers 404 for a compacted target version", async () => {
      const { id } = await compactedDocument();

      expectProblem(await restore(id, { version: 3 }), {
        status: 404,
        code: "not-found",
        title: "Not found",
        detail: `version 3 of document ${id} was compacted`,
        instance: `${DOCUMENTS}/${id}/restore`,
      });
    });

    it("still restores a deleted document from its deletion record", async () => {
      const { id } = await compactedDocument();
      await remove(id);
      await t.services.compactor.runOnce();

      expectJson(await restore(id), 200, { id, title: "Busy", content: "line 40\nend", version: 43, createdAt: T0, updatedAt: at(AFTER_RETENTION_MS) });
    });
  });

  it("answers 409 without a version when the document exists, and changes nothing", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "one" });
    const url = `${DOCUMENTS}/${created.id}/restore`;

    expectProblem(await restore(created.id), {
      status: 409,
      code: "document-exists",
      title: "Document exists",
      detail: `document ${created.id} exists; name a version to roll back to`,
      instance: url,
    });
    expect((await restore(created.id, {})).statusCode).toBe(409);
    expectJson(await history(created.id), 200, [historyEntry(created.id, 1, "CREATED", "Plan", "one", T0)]);
  });

  it("answers 404 for an unknown document", async () => {
    expectProblem(await restore(UNKNOWN_ID), notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}/restore`));
  });

  it("answers 404 for an unknown document with a version", async () => {
    expectProblem(await restore(UNKNOWN_ID, { version: 1 }), notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}/restore`));
  });

  it("answers 404 for a version that does not exist", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "one" });

    expectProblem(await restore(created.id, { version: 99 }), {
      status: 404,
      code: "not-found",
      title: "Not found",
      detail: `document ${created.id} has no version 99`,
      instance: `${DOCUMENTS}/${created.id}/restore`,
    });
  });

  it("answers 400 for version 0, below the schema's minimum of 1", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "one" });

    expectProblem(await restore(created.id, { version: 0 }), invalid("body.version: must be >= 1", `${DOCUMENTS}/${created.id}/restore`));
  });

  it("answers 400 for a version that is not an integer", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "one" });

    expectProblem(await restore(created.id, { version: "1" }), invalid("body.version: must be integer", `${DOCUMENTS}/${created.id}/restore`));
  });

  it("answers 400 for a body that is not JSON", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "one" });
    const url = `${DOCUMENTS}/${created.id}/restore`;

    const response = await t.app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: "{version: 1}" });

    expectProblem(response, invalid("the body is not valid JSON: Body is not valid JSON but content-type is set to 'application/json'", url));
  });

  it("answers 400 for a malformed UUID", async () => {
    const url = `${DOCUMENTS}/not-a-uuid/restore`;

    expectProblem(await t.app.inject({ method: "POST", url }), invalid('params.documentId: must match format "uuid"', url));
  });
});
