import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { DOCUMENTS, T0, UNKNOWN_ID, at, createDocument, expectDocument, expectJson, expectProblem, invalid, notFound } from "../support/http-expect.js";


const t = appPerTest();

const rename = (id: string, body: unknown) => t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: body as object });

describe("PATCH /documents/{documentId}/title", () => {
  it("renames the document as a new version and keeps its content", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a\nb" });
    t.clock.advance(2500);

    const response = await rename(created.id, { title: "Final", expectedVersion: 1 });

    const expected = { id: created.id, title: "Final", content: "a\nb", version: 2, createdAt: T0, updatedAt: at(2500) };
    expectJson(response, 200, expected);
    await expectDocument(t.app, expected);
  });

  it("records the rename as a RENAMED milestone in the history", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "a" });
    t.clock.advance(1000);
    await rename(created.id, { title: "Second", expectedVersion: 1 });
    t.clock.advance(1000);
    await t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${created.id}`, payload: { title: "Second", content: "b" } });
    t.clock.advance(1000);
    await rename(created.id, { title: "Third", expectedVersion: 3 });

    expectJson(await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${created.id}/history` }), 200, [
      { documentId: created.id, version: 1, title: "Draft", content: "a", changeType: "CREATED", timestamp: T0 },
      { documentId: created.id, version: 2, title: "Second", content: "a", changeType: "RENAMED", timestamp: at(1000) },
      { documentId: created.id, version: 3, title: "Second", content: "b", changeType: "UPDATED", timestamp: at(2000) },
      { documentId: created.id, version: 4, title: "Third", content: "b", changeType: "RENAMED", timestamp: at(3000) },
    ]);
  });

  it("accepts a title of 255 astral code points", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });
    const title = "𝄞".repeat(255);

    expectJson(await rename(created.id, { title, expectedVersion: 1 }), 200, { id: created.id, title, content: "", version: 2, createdAt: T0, updatedAt: T0 });
  });

  it("answers 400 for an empty title", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });

    expectProblem(
      await rename(created.id, { title: "", expectedVersion: 1 }),
      invalid("body.title: must NOT have fewer than 1 characters", `${DOCUMENTS}/${created.id}/title`),
    );
  });

  it("answers 400 for a title of white space only", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });

    expectProblem(
      await rename(created.id, { title: "\u3000 ", expectedVersion: 1 }),
      invalid("title must not be empty or only white space", `${DOCUMENTS}/${created.id}/title`),
    );
  });

  it("answers 400 for a title of 256 code points", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });

    expectProblem(
      await rename(created.id, { title: "t".repeat(256), expectedVersion: 1 }),
      invalid("body.title: must NOT have more than 255 characters", `${DOCUMENTS}/${created.id}/title`),
    );
  });

  it("answers 400 for a title with a lone surrogate", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });
    const url = `${DOCUMENTS}/${created.id}/title`;

    const response = await t.app.inject({
      method: "PATCH",
      url,
      headers: { "content-type": "application/json" },
      payload: '{"title": "broken \\ud800", "expectedVersion": 1}',
    });

    expectProblem(response, invalid("title is not well-formed Unicode (a lone surrogate)", url));
  });

  it("answers 400 without expectedVersion", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });

    expectProblem(
      await rename(created.id, { title: "Final" }),
      invalid("body.expectedVersion: must have required property 'expectedVersion'", `${DOCUMENTS}/${created.id}/title`),
    );
  });

  it("answers 400 for a malformed UUID", async () => {
    const url = `${DOCUMENTS}/not-a-uuid/title`;

    expectProblem(
      await t.app.inject({ method: "PATCH", url, payload: { title: "Final", expectedVersion: 1 } }),
      invalid('params.documentId: must match format "uuid"', url),
    );
  });

  it("answers 404 for an unknown document", async () => {
    expectProblem(await rename(UNKNOWN_ID, { title: "Final", expectedVersion: 1 }), notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}/title`));
  });

  it("answers 404 for a deleted document", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });
    await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${created.id}` });

    expectProblem(await rename(created.id, { title: "Final", expectedVersion: 2 }), notFound(created.id, `${DOCUMENTS}/${created.id}/title`));
  });

  it("answers 409 for a stale expectedVersion and keeps the title", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });
    await rename(created.id, { title: "Theirs", expectedVersion: 1 });

    expectProblem(await rename(created.id, { title: "Mine", expectedVersion: 1 }), {
      status: 409,
      code: "version-conflict",
      title: "Version conflict",
      detail: "expectedVersion 1 is not the current version 2",
      instance: `${DOCUMENTS}/${created.id}/title`,
    });
    expect((await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${created.id}` })).json<{ title: string }>().title).toBe("Theirs");
  });

  it("answers 409 for an expectedVersion ahead of the document", async () => {
    const created = await createDocument(t.app, { title: "Draft", content: "" });

    expectProblem(await rename(created.id, { title: "Mine", expectedVersion: 7 }), {
      status: 409,
      code: "version-conflict",
      title: "Version conflict",
      detail: "expectedVersion 7 is not the current version 1",
      instance: `${DOCUMENTS}/${created.id}/title`,
    });
  });
});
