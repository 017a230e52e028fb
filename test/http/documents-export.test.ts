import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { ContentEditor, RETENTION_MS, historyTimes } from "../support/content-patch.js";
import { DOCUMENTS, UNKNOWN_ID, createDocument, expectProblem, invalid, notFound } from "../support/http-expect.js";
import { READ, ReadLinkClient, noReadLink, readLinkOfDeleted } from "../support/read-link-client.js";

// GET /documents/{id}/export and GET /read/{readId}/export (docs/notation.md#export-and-import):
// the exact files, media types and names, versions, read links, deleted documents and bad
// requests. Runs on SQLite and (project "postgres") on PostgreSQL.

const t = appPerTest({ config: historyTimes });
const TEXT = "Launch\n  [ ] Write notes\n  [x] Test upgrade\n    on staging\n\nAnnounce & <celebrate>";

const exportOf = (url: string) => t.app.inject({ method: "GET", url });

/** Asserts an export's status, the headers that make it a download, and its exact body. */
function expectFile(response: LightMyRequestResponse, expected: { type: string; disposition: string; body: string }): void {
  expect({
    status: response.statusCode,
    type: response.headers["content-type"],
    disposition: response.headers["content-disposition"],
    cache: response.headers["cache-control"],
    sniff: response.headers["x-content-type-options"],
    body: response.body,
  }).toEqual({ status: 200, ...expected, cache: "no-store", sniff: "nosniff" });
}

describe("GET /documents/{documentId}/export", () => {
  it("answers the text as a Markdown list, boxes as GFM task items, named after the title", async () => {
    const { id } = await createDocument(t.app, { title: "Launch plan", content: TEXT });

    expectFile(await exportOf(`${DOCUMENTS}/${id}/export?format=markdown`), {
      type: "text/markdown; charset=utf-8",
      disposition: 'attachment; filename="Launch plan.md"',
      body: "- Launch\n  - [ ] Write notes\n  - [x] Test upgrade\n    - on staging\n\n- Announce & <celebrate>\n",
    });
  });

  it("answers OPML 2.0 with the title in its head and boxes as Dynalist's and Workflowy's attributes", async () => {
    const { id } = await createDocument(t.app, { title: "Launch plan", content: TEXT });

    expectFile(await exportOf(`${DOCUMENTS}/${id}/export?format=opml`), {
      type: "text/x-opml; charset=utf-8",
      disposition: 'attachment; filename="Launch plan.opml"',
      body: [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<opml version="2.0">',
        "  <head>",
        "    <title>Launch plan</title>",
        "  </head>",
        "  <body>",
        '    <outline text="Launch">',
        '      <outline text="Write notes" checkbox="true"/>',
        '      <outline text="Test upgrade" checkbox="true" complete="true" _complete="true">',
        '        <outline text="on staging"/>',
        "      </outline>",
        "    </outline>",
        '    <outline text=""/>',
        '    <outline text="Announce &amp; &lt;celebrate&gt;"/>',
        "  </body>",
        "</opml>",
        "",
      ].join("\n"),
    });
  });

  it("answers the text itself as plain text, ending with a line break", async () => {
    const { id } = await createDocument(t.app, { title: "Launch plan", content: TEXT });

    expectFile(await exportOf(`${DOCUMENTS}/${id}/export?format=text`), { type: "text/plain; charset=utf-8", disposition: 'attachment; filename="Launch plan.txt"', body: `${TEXT}\n` });
  });

  it("names the file with an ASCII stand-in and the UTF-8 name (RFC 6266, 8187), without what file systems refuse", async () => {
    const { id } = await createDocument(t.app, { title: 'Übersicht: Q1/Q2 "Plan" 日本', content: "a" });

    const response = await exportOf(`${DOCUMENTS}/${id}/export?format=text`);

    expect(response.headers["content-disposition"]).toEqual(
      "attachment; filename=\"_bersicht Q1 Q2 Plan __.txt\"; filename*=UTF-8''%C3%9Cbersicht%20Q1%20Q2%20Plan%20%E6%97%A5%E6%9C%AC.txt",
    );
  });

  it("exports a version of the history with that version's title and text, writing no version itself", async () => {
    const editor = await ContentEditor.create(t.app, "first");
    await editor.setLine(0, "second");
    expect((await t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${editor.id}/title`, payload: { title: "Renamed", expectedVersion: 2 } })).statusCode).toBe(200);

    expectFile(await exportOf(`${DOCUMENTS}/${editor.id}/export?format=text&version=1`), { type: "text/plain; charset=utf-8", disposition: 'attachment; filename="Notes.txt"', body: "first\n" });
    expectFile(await exportOf(`${DOCUMENTS}/${editor.id}/export?format=markdown&version=3`), {
      type: "text/markdown; charset=utf-8",
      disposition: 'attachment; filename="Renamed.md"',
      body: "- second\n",
    });
    expect((await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${editor.id}` })).json<{ version: number }>().version).toBe(3);
  });

  it("answers 404 for an unknown or deleted document, and for a version it never had or that was compacted", async () => {
    const deleted = await createDocument(t.app, { title: "Gone", content: "a" });
    expect((await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${deleted.id}` })).statusCode).toBe(204);
    const editor = await ContentEditor.create(t.app, "a");
    await editor.setLine(0, "b");
    await editor.setLine(0, "c");
    t.clock.advance(RETENTION_MS + 1);
    await t.services.compactor.runOnce();

    const url = (id: string, query: string) => `${DOCUMENTS}/${id}/export?${query}`;
    expectProblem(await exportOf(url(UNKNOWN_ID, "format=text")), notFound(UNKNOWN_ID, url(UNKNOWN_ID, "format=text").split("?")[0]!));
    expectProblem(await exportOf(url(deleted.id, "format=opml")), notFound(deleted.id, `${DOCUMENTS}/${deleted.id}/export`));
    expectProblem(await exportOf(url(deleted.id, "format=opml&version=1")), notFound(deleted.id, `${DOCUMENTS}/${deleted.id}/export`));
    expectProblem(await exportOf(url(editor.id, "format=text&version=4")), {
      status: 404,
      code: "not-found",
      title: "Not found",
      detail: `document ${editor.id} has no version 4`,
      instance: `${DOCUMENTS}/${editor.id}/export`,
    });
    expectProblem(await exportOf(url(editor.id, "format=text&version=2")), {
      status: 404,
      code: "not-found",
      title: "Not found",
      detail: `version 2 of document ${editor.id} was compacted`,
      instance: `${DOCUMENTS}/${editor.id}/export`,
    });
    // The milestone and the current version stay exportable.
    expect((await exportOf(url(editor.id, "format=text&version=1"))).body).toBe("a\n");
    expect((await exportOf(url(editor.id, "format=text&version=3"))).body).toBe("c\n");
  });

  it("answers 400 for a missing or unknown format, a bad version and a malformed id", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const instance = `${DOCUMENTS}/${id}/export`;

    expectProblem(await exportOf(instance), invalid("querystring.format: must have required property 'format'", instance));
    expectProblem(await exportOf(`${instance}?format=pdf`), invalid("querystring.format: must be one of markdown, opml, text", instance));
    expectProblem(await exportOf(`${instance}?format=MARKDOWN`), invalid("querystring.format: must be one of markdown, opml, text", instance));
    expectProblem(await exportOf(`${instance}?format=text&version=0`), invalid("querystring.version: must be >= 1", instance));
    expectProblem(await exportOf(`${instance}?format=text&version=x`), invalid("querystring.version: must be integer", instance));
    expectProblem(await exportOf(`${DOCUMENTS}/not-a-uuid/export?format=text`), invalid('params.documentId: must match format "uuid"', `${DOCUMENTS}/not-a-uuid/export`));
  });
});

describe("GET /read/{readId}/export", () => {
  it("answers the same file through a read-only link, a version too, and never names the document's id", async () => {
    const editor = await ContentEditor.create(t.app, "first");
    await editor.setLine(0, "second");
    const readId = await new ReadLinkClient(t.app).newReadId(editor.id);

    const response = await exportOf(`${READ}/${readId}/export?format=markdown`);
    expectFile(response, { type: "text/markdown; charset=utf-8", disposition: 'attachment; filename="Notes.md"', body: "- second\n" });
    expect(JSON.stringify(response.headers)).not.toContain(editor.id);
    expect((await exportOf(`${READ}/${readId}/export?format=text&version=1`)).body).toBe("first\n");
  });

  it("answers 404 for an unknown or revoked link, a deleted document and an unknown version, 400 for a bad format", async () => {
    const created = await createDocument(t.app, { title: "Plan", content: "a" });
    const links = new ReadLinkClient(t.app);
    const readId = await links.newReadId(created.id);
    const instance = `${READ}/${readId}/export`;

    expectProblem(await exportOf(`${instance}?format=bogus`), invalid("querystring.format: must be one of markdown, opml, text", instance));
    expectProblem(await exportOf(`${instance}?format=text&version=2`), {
      status: 404,
      code: "not-found",
      title: "Not found",
      detail: `document ${readId} has no version 2`,
      instance,
    });
    expectProblem(await exportOf(`${READ}/${UNKNOWN_ID}/export?format=text`), noReadLink(UNKNOWN_ID, `${READ}/${UNKNOWN_ID}/export`));
    expect((await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${created.id}` })).statusCode).toBe(204);
    expectProblem(await exportOf(`${instance}?format=text`), readLinkOfDeleted(readId, instance));
    expect((await links.revoke(created.id)).statusCode).toBe(204);
    expectProblem(await exportOf(`${instance}?format=text`), noReadLink(readId, instance));
  });
});
