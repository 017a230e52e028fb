import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { DOCUMENTS, SMALL_MAX_CONTENT_BYTES, T0, UUID, contentTooLarge, createDocument, expectJson, expectProblem, invalid, smallMaxContent } from "../support/http-expect.js";

/* POST /documents: a new document, and the requests it refuses. Reading, replacing and deleting one: documents-get-put-delete.test.ts. */

const t = appPerTest({ config: smallMaxContent });

describe("POST /documents", () => {
  it("creates a document at version 1 with a fresh UUID and the clock's time", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "Plan", content: "one\ntwo" } });

    const id = response.json<{ id: string }>().id;
    expect(id).toMatch(UUID);
    expectJson(response, 201, { id, title: "Plan", content: "one\ntwo", version: 1, createdAt: T0, updatedAt: T0 });
  });

  it("answers the new document's address in Location, where GET finds it", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "Plan", content: "one" } });

    const id = response.json<{ id: string }>().id;
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe(`${DOCUMENTS}/${id}`);
    expectJson(await t.app.inject({ method: "GET", url: response.headers.location }), 200, { id, title: "Plan", content: "one", version: 1, createdAt: T0, updatedAt: T0 });
  });

  it("gives every new document a UUID of its own", async () => {
    const first = await createDocument(t.app, { title: "A", content: "" });
    const second = await createDocument(t.app, { title: "A", content: "" });

    expect(first.id).not.toBe(second.id);
  });

  it("keeps the content exactly as sent: U+0000, a lone CR, astral characters, a final newline", async () => {
    const content = "a\rb\u0000\n\n😀\n";
    const created = await createDocument(t.app, { title: "Raw", content });

    const read = await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${created.id}` });

    expect(created.content).toBe(content);
    expect(read.json<{ content: string }>().content).toBe(content);
  });

  it("keeps CRLF line endings of a created or replaced document exactly as sent", async () => {
    const created = await createDocument(t.app, { title: "Windows", content: "a\r\nb\r\n" });
    const url = `${DOCUMENTS}/${created.id}`;
    expect(created.content).toBe("a\r\nb\r\n");
    expect((await t.app.inject({ method: "GET", url })).json<{ content: string }>().content).toBe("a\r\nb\r\n");

    await t.app.inject({ method: "PUT", url, payload: { title: "Windows", content: "c\r\n" } });
    expect((await t.app.inject({ method: "GET", url })).json<{ content: string }>().content).toBe("c\r\n");
  });

  it("ignores an unknown field", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T", content: "c", colour: "red" } });

    const id = response.json<{ id: string }>().id;
    expectJson(response, 201, { id, title: "T", content: "c", version: 1, createdAt: T0, updatedAt: T0 });
  });

  it("accepts a title of 255 astral code points (510 UTF-16 units)", async () => {
    const title = "😀".repeat(255);
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title, content: "" } });

    const id = response.json<{ id: string }>().id;
    expectJson(response, 201, { id, title, content: "", version: 1, createdAt: T0, updatedAt: T0 });
  });

  it("answers 400 when the title is missing", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { content: "c" } });

    expectProblem(response, invalid("body.title: must have required property 'title'", DOCUMENTS));
  });

  it("answers 400 when the content is missing", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T" } });

    expectProblem(response, invalid("body.content: must have required property 'content'", DOCUMENTS));
  });

  it("answers 400 when the title is a number rather than a string", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: 42, content: "c" } });

    expectProblem(response, invalid("body.title: must be string", DOCUMENTS));
  });

  it("answers 400 when the content is not a string", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T", content: ["c"] } });

    expectProblem(response, invalid("body.content: must be string", DOCUMENTS));
  });

  it("answers 400 for an empty title", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "", content: "c" } });

    expectProblem(response, invalid("body.title: must NOT have fewer than 1 characters", DOCUMENTS));
  });

  it("answers 400 for a title of white space only", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: " \t\u00a0\n", content: "c" } });

    expectProblem(response, invalid("title must not be empty or only white space", DOCUMENTS));
  });

  it("answers 400 for a title of 256 code points", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "x".repeat(256), content: "c" } });

    expectProblem(response, invalid("body.title: must NOT have more than 255 characters", DOCUMENTS));
  });

  it("answers 400 for a title of 256 astral code points", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "😀".repeat(256), content: "c" } });

    expectProblem(response, invalid("body.title: must NOT have more than 255 characters", DOCUMENTS));
  });

  it("answers 400 for a body that is not JSON", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: DOCUMENTS,
      headers: { "content-type": "application/json" },
      payload: '{"title": "T", "content": ',
    });

    expectProblem(
      response,
      invalid("the body is not valid JSON: Body is not valid JSON but content-type is set to 'application/json'", DOCUMENTS),
    );
  });

  it("answers 400 for an empty body sent as application/json", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, headers: { "content-type": "application/json" }, payload: "" });

    expectProblem(response, invalid("body: must be object", DOCUMENTS));
  });

  it("answers 400 for a request without any body", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS });

    expectProblem(response, invalid("body: must be object", DOCUMENTS));
  });

  it("answers 400 for a JSON body that is not an object", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, headers: { "content-type": "application/json" }, payload: "[]" });

    expectProblem(response, invalid("body: must be object", DOCUMENTS));
  });

  it("accepts content of exactly max-content-bytes", async () => {
    const content = "x".repeat(SMALL_MAX_CONTENT_BYTES);
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T", content } });

    expect(response.statusCode).toBe(201);
    expect(response.json<{ content: string }>().content).toBe(content);
  });

  it("answers 413 for content one byte above max-content-bytes", async () => {
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T", content: "x".repeat(SMALL_MAX_CONTENT_BYTES + 1) } });

    expectProblem(response, contentTooLarge("content is 65 bytes; the limit is 64", DOCUMENTS));
  });

  it("counts the content limit in UTF-8 bytes, not characters", async () => {
    // 33 characters of two bytes each: 66 bytes.
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T", content: "é".repeat(33) } });

    expectProblem(response, contentTooLarge("content is 66 bytes; the limit is 64", DOCUMENTS));
  });

  it("answers 400 for content with a lone surrogate", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: DOCUMENTS,
      headers: { "content-type": "application/json" },
      payload: '{"title": "T", "content": "half \\udc00 a pair"}',
    });

    expectProblem(response, invalid("content is not well-formed Unicode (a lone surrogate)", DOCUMENTS));
  });

  it("answers 413 for a request body above the transport limit, before reading the content", async () => {
    // The body limit is twice max-content-bytes plus 64 KiB, to leave room for JSON escapes.
    const response = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T", content: "x".repeat(70_000) } });

    expectProblem(response, contentTooLarge("the request body is larger than the service accepts", DOCUMENTS));
  });

  it("stores nothing when it refuses a request", async () => {
    await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: " ", content: "c" } });
    await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "T", content: "x".repeat(SMALL_MAX_CONTENT_BYTES + 1) } });

    expect(await t.store.listDocuments()).toEqual([]);
  });
});
