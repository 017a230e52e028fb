import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { DOCUMENTS, JSON_TYPE, SMALL_MAX_CONTENT_BYTES, T0, UNKNOWN_ID, at, contentTooLarge, createDocument, expectDocument, expectJson, expectProblem, invalid, notFound, smallMaxContent } from "../support/http-expect.js";

/* GET, PUT and DELETE /documents/{documentId}. Creating a document, and the bodies POST refuses: documents-create.test.ts. */

const t = appPerTest({ config: smallMaxContent });

describe("GET /documents/{documentId}", () => {
  it("answers 200 with the document", async () => {
    const created = await createDocument(t.app, { title: "Notes", content: "a\nb" });
    t.clock.advance(5000);

    const response = await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${created.id}` });

    expectJson(response, 200, { id: created.id, title: "Notes", content: "a\nb", version: 1, createdAt: T0, updatedAt: T0 });
  });

  it("finds the document under its UUID in upper case", async () => {
    const created = await createDocument(t.app, { title: "Notes", content: "a" });

    const response = await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${created.id.toUpperCase()}` });

    expectJson(response, 200, created);
  });

  it("answers 404 for an unknown UUID", async () => {
    const url = `${DOCUMENTS}/${UNKNOWN_ID}`;
    const response = await t.app.inject({ method: "GET", url });

    expectProblem(response, notFound(UNKNOWN_ID, url));
  });

  it("answers 400 for a malformed UUID", async () => {
    const url = `${DOCUMENTS}/not-a-uuid`;
    const response = await t.app.inject({ method: "GET", url });

    expectProblem(response, invalid('params.documentId: must match format "uuid"', url));
  });

  it("answers 400 problem+json for a path with a broken percent-encoding", async () => {
    const url = `${DOCUMENTS}/%E0%A4%A`;

    const response = await t.app.inject({ method: "GET", url });

    expect(response.statusCode).toBe(400);
    expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(response.json()).toEqual(expect.objectContaining({ type: "urn:folio:problem:invalid-request", status: 400, instance: url }));
  });

  it("answers 400 problem+json for a document id longer than the router's parameter limit", async () => {
    const url = `${DOCUMENTS}/${"a".repeat(300)}`;

    const response = await t.app.inject({ method: "GET", url });

    expect(response.statusCode).toBe(400);
    expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(response.json()).toEqual(expect.objectContaining({ type: "urn:folio:problem:invalid-request", status: 400, instance: url }));
  });

  it("names only the path in instance, without the query", async () => {
    const response = await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${UNKNOWN_ID}?x=1` });

    expectProblem(response, notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}`));
  });

  it("answers 404 for a deleted document", async () => {
    const created = await createDocument(t.app, { title: "Gone", content: "" });
    await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${created.id}` });

    const url = `${DOCUMENTS}/${created.id}`;
    const response = await t.app.inject({ method: "GET", url });

    expectProblem(response, notFound(created.id, url));
  });
});

describe("PUT /documents/{documentId}", () => {
  it("replaces title and content and answers 200 with the next version", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    t.clock.advance(1500);

    const url = `${DOCUMENTS}/${created.id}`;
    const response = await t.app.inject({ method: "PUT", url, payload: { title: "Final", content: "a\nb" } });

    const expected = { id: created.id, title: "Final", content: "a\nb", version: 2, createdAt: T0, updatedAt: at(1500) };
    expectJson(response, 200, expected);
    await expectDocument(t.app, expected);
  });

  it("applies the change when expectedVersion is the current version", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });

    const response = await t.app.inject({
      method: "PUT",
      url: `${DOCUMENTS}/${created.id}`,
      payload: { title: "Draft", content: "b", expectedVersion: 1 },
    });

    expectJson(response, 200, { id: created.id, title: "Draft", content: "b", version: 2, createdAt: T0, updatedAt: T0 });
  });

  it("applies the change without expectedVersion, whatever the current version", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;
    await t.app.inject({ method: "PUT", url, payload: { title: "Draft", content: "b" } });

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "Draft", content: "c" } });

    expectJson(response, 200, { id: created.id, title: "Draft", content: "c", version: 3, createdAt: T0, updatedAt: T0 });
  });

  it("answers 409 for a stale expectedVersion and changes nothing", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;
    await t.app.inject({ method: "PUT", url, payload: { title: "Draft", content: "b" } });

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "Mine", content: "mine", expectedVersion: 1 } });

    expectProblem(response, {
      status: 409,
      code: "version-conflict",
      title: "Version conflict",
      detail: "expectedVersion 1 is not the current version 2",
      instance: url,
    });
    await expectDocument(t.app, { id: created.id, title: "Draft", content: "b", version: 2, createdAt: T0, updatedAt: T0 });
  });

  it("answers 400 for an empty title", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "", content: "a" } });

    expectProblem(response, invalid("body.title: must NOT have fewer than 1 characters", url));
  });

  it("answers 400 for a title of white space only", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "   ", content: "a" } });

    expectProblem(response, invalid("title must not be empty or only white space", url));
  });

  it("answers 400 when the content is missing", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "Draft" } });

    expectProblem(response, invalid("body.content: must have required property 'content'", url));
  });

  it("answers 400 for an expectedVersion that is not an integer", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "Draft", content: "a", expectedVersion: "1" } });

    expectProblem(response, invalid("body.expectedVersion: must be integer", url));
  });

  it("answers 400 for a malformed UUID", async () => {
    const url = `${DOCUMENTS}/1234`;

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "T", content: "c" } });

    expectProblem(response, invalid('params.documentId: must match format "uuid"', url));
  });

  it("answers 404 for an unknown document", async () => {
    const url = `${DOCUMENTS}/${UNKNOWN_ID}`;

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "T", content: "c" } });

    expectProblem(response, notFound(UNKNOWN_ID, url));
  });

  it("answers 404 for a deleted document", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;
    await t.app.inject({ method: "DELETE", url });

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "T", content: "c" } });

    expectProblem(response, notFound(created.id, url));
  });

  it("answers 413 for content above max-content-bytes and keeps the document as it was", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    const url = `${DOCUMENTS}/${created.id}`;

    const response = await t.app.inject({ method: "PUT", url, payload: { title: "Draft", content: "y".repeat(SMALL_MAX_CONTENT_BYTES + 1) } });

    expectProblem(response, contentTooLarge("content is 65 bytes; the limit is 64", url));
    expect((await t.app.inject({ method: "GET", url })).json<{ version: number }>().version).toBe(1);
  });
});

describe("DELETE /documents/{documentId}", () => {
  it("answers 204 with an empty body and no content type", async () => {
    const created = await createDocument(t.app, { title: "Old", content: "x" });

    const response = await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${created.id}` });

    expect({ status: response.statusCode, body: response.body, contentType: response.headers["content-type"] }).toEqual({
      status: 204,
      body: "",
      contentType: undefined,
    });
  });

  it("deletes only the named document: it reads 404, another one stays", async () => {
    const doomed = await createDocument(t.app, { title: "Old", content: "x" });
    const kept = await createDocument(t.app, { title: "Kept", content: "y" });

    await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${doomed.id}` });

    expect((await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${doomed.id}` })).statusCode).toBe(404);
    const keptResponse = await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${kept.id}` });
    expect(keptResponse.headers["content-type"]).toBe(JSON_TYPE);
    expect(keptResponse.json()).toEqual(kept);
  });

  it("answers 404 for an unknown document", async () => {
    const url = `${DOCUMENTS}/${UNKNOWN_ID}`;

    const response = await t.app.inject({ method: "DELETE", url });

    expectProblem(response, notFound(UNKNOWN_ID, url));
  });

  it("answers 404 when the document is already deleted", async () => {
    const created = await createDocument(t.app, { title: "Old", content: "x" });
    const url = `${DOCUMENTS}/${created.id}`;
    await t.app.inject({ method: "DELETE", url });

    const response = await t.app.inject({ method: "DELETE", url });

    expectProblem(response, notFound(created.id, url));
  });

  it("answers 400 for a malformed UUID", async () => {
    const url = `${DOCUMENTS}/zzz`;

    const response = await t.app.inject({ method: "DELETE", url });

    expectProblem(response, invalid('params.documentId: must match format "uuid"', url));
  });
});
