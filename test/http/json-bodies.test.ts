import { describe, expect, it } from "vitest";
import { documentBodyBytes, MAX_JSON_DEPTH, nestsDeeperThan, SMALL_BODY_BYTES } from "../../src/http/json-bodies.js";
import { appPerTest } from "../support/app-per-test.js";
import { createDocument, DOCUMENTS, expectProblem, invalid } from "../support/http-expect.js";

// The bodies one request may send (docs/api.md, "Bounds"): a few KiB on every route that carries no
// document, and no nesting deeper than MAX_JSON_DEPTH on any, refused before JSON.parse sees it.

const t = appPerTest();

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const tooLarge = (instance: string) => ({ status: 413, code: "content-too-large", title: "Content too large", detail: "the request body is larger than the service accepts", instance });
const tooDeep = (instance: string) => invalid(`the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, instance);

describe("the nesting pre-scan", () => {
  it("counts brackets outside strings only, however the strings escape their quotes", () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${"[".repeat(100)}"}`, 2)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\"[[[[\\\\"}`, 1)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\\\"}[[[`, 2)).toBe(true);
    expect(nestsDeeperThan(`{"a":"\\"[[[`, 1)).toBe(false);
    expect(nestsDeeperThan(`[{"a":[{}]}]`, 4)).toBe(false);
    expect(nestsDeeperThan(`[{"a":[{}]}]`, 3)).toBe(true);
  });
});

describe("request bodies", () => {
  it("refuses a body nested deeper than the limit with a 400 before parsing it, on every route, the document ones included", async () => {
    const { id } = await createDocument(t.app, { title: "Nested", content: "a" });
    const deep = nested(200_000);
    for (const [method, url] of [
      ["PUT", `${DOCUMENTS}/${id}`],
      ["POST", DOCUMENTS],
      ["PATCH", `${DOCUMENTS}/${id}/content`],
    ] as const) {
      const response = await t.app.inject({ method, url, headers: { "content-type": "application/json" }, payload: deep });
      expectProblem(response, tooDeep(url));
    }
    const depthOk = await t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, headers: { "content-type": "application/json" }, payload: nested(MAX_JSON_DEPTH) });
    expectProblem(depthOk, invalid("body: must be object", `${DOCUMENTS}/${id}/title`));
  });

  it("takes a few KiB on routes that carry no document, and a document's size on create, replace and content patches", async () => {
    const { id } = await createDocument(t.app, { title: "Limits", content: "a" });
    const padded = (bytes: number, fields: object) => JSON.stringify({ ...fields, padding: "x".repeat(bytes) });
    const title = `${DOCUMENTS}/${id}/title`;
    expectProblem(await t.app.inject({ method: "PATCH", url: title, headers: { "content-type": "application/json" }, payload: padded(SMALL_BODY_BYTES, { title: "T", expectedVersion: 1 }) }), tooLarge(title));
    const renamed = await t.app.inject({ method: "PATCH", url: title, headers: { "content-type": "application/json" }, payload: padded(SMALL_BODY_BYTES - 100, { title: "T", expectedVersion: 1 }) });
    expect(renamed.statusCode).toBe(200);
    const restore = `${DOCUMENTS}/${id}/restore`;
    expectProblem(await t.app.inject({ method: "POST", url: restore, headers: { "content-type": "application/json" }, payload: padded(SMALL_BODY_BYTES, { version: 1 }) }), tooLarge(restore));

    // Past the small limit, a replace is taken: its body carries the document.
    const content = "y".repeat(SMALL_BODY_BYTES * 4);
    const replaced = await t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title: "Big", content } });
    expect(replaced.statusCode).toBe(200);
    expect(documentBodyBytes(t.config.documents)).toBe(t.config.documents.maxContentBytes * 2 + 65_536);
  });
});
