import { beforeEach, describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { DOCUMENTS, T0, UNKNOWN_ID, at, createDocument, expectJson, expectProblem, invalid, notFound } from "../support/http-expect.js";
import { FeedClient, expectNoContent } from "../support/feed-client.js";
import { READ, ReadLinkClient, noLinkOf, noReadLink, readLinkOfDeleted, visible } from "../support/read-link-client.js";

// docs/sharing.md: a document's read-only link, made, rotated and revoked by the document's id and
// read by its own. Runs on SQLite and (project "postgres") on PostgreSQL.

const t = appPerTest();
let links: ReadLinkClient;
let docs: FeedClient;

beforeEach(() => {
  links = new ReadLinkClient(t.app);
  docs = new FeedClient(t.app);
});

describe("POST /documents/{documentId}/read-link", () => {
  it("answers 201 with a new random read id, and records no version: the document and its history stay as they were", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });

    const response = await links.create(created.id);

    const { readId } = response.json<{ readId: string }>();
    expectJson(response, 201, { readId });
    expect(readId).not.toBe(created.id);
    expectJson(await docs.get(created.id), 200, created);
    expectJson(await docs.history(created.id), 200, [{ documentId: created.id, version: 1, title: "Plan", content: "a", changeType: "CREATED", timestamp: T0 }]);
    expectNoContent(await docs.changes(created.id, 1, 0));
  });

  it("rotates: a new link replaces the earlier one, which stops working everywhere under /read/", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const first = await links.newReadId(created.id);
    const second = await links.newReadId(created.id);

    expect(second).not.toBe(first);
    expectJson(await links.link(created.id), 200, { readId: second });
    expectProblem(await links.document(first), noReadLink(first, `${READ}/${first}`));
    expectProblem(await links.history(first), noReadLink(first, `${READ}/${first}/history`));
    expectProblem(await links.changes(first, 0), noReadLink(first, `${READ}/${first}/changes`));
    expect((await links.document(second)).statusCode).toBe(200);
  });

  it("answers 404 for an unknown or a deleted document, and 400 for a malformed id", async () => {
    const deleted = await createDocument(t.app, { title: "Gone", content: "a" });
    expect((await docs.remove(deleted.id)).statusCode).toBe(204);

    expectProblem(await links.create(UNKNOWN_ID), notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}/read-link`));
    expectProblem(await links.create(deleted.id), notFound(deleted.id, `${DOCUMENTS}/${deleted.id}/read-link`));
    expectProblem(await links.create("not-a-uuid"), invalid('params.documentId: must match format "uuid"', `${DOCUMENTS}/not-a-uuid/read-link`));
    expectProblem(await links.link(deleted.id), noLinkOf(deleted.id, `${DOCUMENTS}/${deleted.id}/read-link`));
  });

  it("takes the document id in either case", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id.toUpperCase());

    expectJson(await links.link(created.id), 200, { readId });
  });
});

describe("GET and DELETE /documents/{documentId}/read-link", () => {
  it("answers 404 while a document has no link, 200 with the link once it has one", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    expectProblem(await links.link(created.id), noLinkOf(created.id, `${DOCUMENTS}/${created.id}/read-link`));
    const readId = await links.newReadId(created.id);

    expectJson(await links.link(created.id), 200, { readId });
  });

  it("revokes with 204: the link then answers 404 everywhere, and a second DELETE finds none", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);

    expectNoContent(await links.revoke(created.id));

    expectProblem(await links.link(created.id), noLinkOf(created.id, `${DOCUMENTS}/${created.id}/read-link`));
    expectProblem(await links.document(readId), noReadLink(readId, `${READ}/${readId}`));
    expectProblem(await links.history(readId), noReadLink(readId, `${READ}/${readId}/history`));
    expectProblem(await links.changes(readId, 0, 0), noReadLink(readId, `${READ}/${readId}/changes`));
    expectProblem(await links.revoke(created.id), noLinkOf(created.id, `${DOCUMENTS}/${created.id}/read-link`));
  });

  it("answers 404 for a document that never existed and 400 for a malformed id", async () => {
    expectProblem(await links.link(UNKNOWN_ID), notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}/read-link`));
    expectProblem(await links.revoke(UNKNOWN_ID), notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}/read-link`));
    expectProblem(await links.link("123"), invalid('params.documentId: must match format "uuid"', `${DOCUMENTS}/123/read-link`));
    expectProblem(await links.revoke("123"), invalid('params.documentId: must match format "uuid"', `${DOCUMENTS}/123/read-link`));
  });

  it("keeps the link of a deleted document, shows it, and revokes it too", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);
    expect((await docs.remove(created.id)).statusCode).toBe(204);

    expectJson(await links.link(created.id), 200, { readId });
    expect((await links.history(readId)).statusCode).toBe(200);
    expectNoContent(await links.revoke(created.id));
    expectProblem(await links.history(readId), noReadLink(readId, `${READ}/${readId}/history`));
  });
});

describe("GET /read/{readId}", () => {
  it("answers the document with the read id in place of its own", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);
    t.clock.advance(5_000);
    expect((await docs.rename(created.id, "Plan B", 1)).statusCode).toBe(200);
    expect((await docs.patch(created.id, { baseVersion: 2, base: "a", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] })).statusCode).toBe(200);

    expectJson(await links.document(readId), 200, { readId, title: "Plan B", content: "a\nb", version: 3, createdAt: T0, updatedAt: at(5_000) });
  });

  it("takes the read id in either case and answers it in lower case", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);

    expectJson(await links.document(readId.toUpperCase()), 200, { readId, title: "Plan", content: "a", version: 1, createdAt: T0, updatedAt: T0 });
  });

  it("answers 404 while the document is deleted, and the same link works again after a restore", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);
    t.clock.advance(1_000);
    expect((await docs.remove(created.id)).statusCode).toBe(204);

    expectProblem(await links.document(readId), readLinkOfDeleted(readId, `${READ}/${readId}`));
    t.clock.advance(1_000);
    expect((await docs.restore(created.id)).statusCode).toBe(200);
    expectJson(await links.document(readId), 200, { readId, title: "Plan", content: "a", version: 3, createdAt: T0, updatedAt: at(2_000) });
  });

  it("answers 404 for an unknown read id and 400 for a malformed one, on all three read routes", async () => {
    expectProblem(await links.document(UNKNOWN_ID), noReadLink(UNKNOWN_ID, `${READ}/${UNKNOWN_ID}`));
    expectProblem(await links.history(UNKNOWN_ID), noReadLink(UNKNOWN_ID, `${READ}/${UNKNOWN_ID}/history`));
    expectProblem(await links.changes(UNKNOWN_ID, 0, 0), noReadLink(UNKNOWN_ID, `${READ}/${UNKNOWN_ID}/changes`));
    for (const [path, response] of [
      [`${READ}/nope`, await links.document("nope")],
      [`${READ}/urn:uuid:${UNKNOWN_ID}/history`, await links.history(`urn:uuid:${UNKNOWN_ID}`)],
      [`${READ}/${UNKNOWN_ID}x/changes`, await links.changes(`${UNKNOWN_ID}x`, 0, 0)],
    ] as const) {
      expectProblem(response, invalid('params.readId: must match format "uuid"', path));
    }
    expectProblem(await links.changes(UNKNOWN_ID, -1), invalid("querystring.since: must be >= 0", `${READ}/${UNKNOWN_ID}/changes`));
  });
});

describe("GET /read/{readId}/history", () => {
  it("answers the document's own history, entry for entry, with documentId set to the read id; deleted documents included", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);
    t.clock.advance(1_000);
    expect((await docs.patch(created.id, { baseVersion: 1, base: "a", seq: 1, displayName: "Ann", milestone: true, ops: [{ op: "insert", index: 1, lines: ["b"] }] })).statusCode).toBe(200);
    t.clock.advance(1_000);
    expect((await docs.remove(created.id)).statusCode).toBe(204);

    const own = (await docs.history(created.id)).json<{ documentId: string }[]>();
    const response = await links.history(readId);

    expectJson(response, 200, own.map((entry) => ({ ...entry, documentId: readId })));
    expect(own.map((entry) => entry.documentId)).toEqual([created.id, created.id, created.id]);
    expect(response.json()).toEqual([
      { documentId: readId, version: 1, title: "Plan", content: "a", changeType: "CREATED", timestamp: T0 },
      { documentId: readId, version: 2, title: "Plan", content: "a\nb", changeType: "UPDATED", timestamp: at(1_000), clientId: "client-1", displayName: "Ann" },
      { documentId: readId, version: 3, title: "Plan", content: "a\nb", changeType: "DELETED", timestamp: at(2_000) },
    ]);
  });
});

describe("read ids and document ids are separate", () => {
  it("answers 404 for a read id used as a document id, on every document route", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);
    const path = `${DOCUMENTS}/${readId}`;

    expectProblem(await docs.get(readId), notFound(readId, path));
    expectProblem(await docs.history(readId), notFound(readId, `${path}/history`));
    expectProblem(await docs.changes(readId, 0, 0), notFound(readId, `${path}/changes`));
    expectProblem(await docs.put(readId, "Mine", "x"), notFound(readId, path));
    expectProblem(await docs.rename(readId, "Mine", 1), notFound(readId, `${path}/title`));
    expectProblem(await docs.patch(readId, { baseVersion: 1, base: "a", seq: 1, ops: [{ op: "insert", index: 1, lines: ["x"] }] }), notFound(readId, `${path}/content`));
    expectProblem(await docs.remove(readId), notFound(readId, path));
    expectProblem(await docs.restore(readId, 1), notFound(readId, `${path}/restore`));
    expectProblem(await links.create(readId), notFound(readId, `${path}/read-link`));
    expectProblem(await links.link(readId), notFound(readId, `${path}/read-link`));
    expectProblem(await links.revoke(readId), notFound(readId, `${path}/read-link`));
    expectJson(await docs.get(created.id), 200, created);
  });

  it("answers 404 for a document id used as a read id, on every read route", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    await links.newReadId(created.id);

    expectProblem(await links.document(created.id), noReadLink(created.id, `${READ}/${created.id}`));
    expectProblem(await links.history(created.id), noReadLink(created.id, `${READ}/${created.id}/history`));
    expectProblem(await links.changes(created.id, 0, 0), noReadLink(created.id, `${READ}/${created.id}/changes`));
  });

  it("never shows the document's id under /read/: not in a body, a header or a problem, whatever the answer", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const readId = await links.newReadId(created.id);
    expect((await docs.patch(created.id, { baseVersion: 1, base: "a", seq: 1, displayName: "Ann", ops: [{ op: "insert", index: 1, lines: ["b"] }] })).statusCode).toBe(200);
    const answers = [
      await links.document(readId),
      await links.history(readId),
      await links.changes(readId, 0, 0),
      await links.changes(readId, 1, 0),
      await links.changes(readId, 2, 0),
      await links.changes(readId, 99, 0),
      await links.changes(readId, "x"),
      await t.app.inject({ method: "GET", url: `${READ}/${readId}/nothing-here` }),
    ];
    expect((await docs.remove(created.id)).statusCode).toBe(204);
    answers.push(await links.document(readId), await links.history(readId), await links.changes(readId, 2, 0));
    expect((await links.revoke(created.id)).statusCode).toBe(204);
    answers.push(await links.document(readId), await links.history(readId), await links.changes(readId, 0, 0));

    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 204, 200, 400, 404, 404, 200, 200, 404, 404, 404]);
    expect(answers.filter((answer) => visible(answer).includes(created.id)).map((answer) => answer.body)).toEqual([]);
    expect(answers.filter((answer) => visible(answer).includes(readId)).length).toBe(answers.length - 5);
  });
});
