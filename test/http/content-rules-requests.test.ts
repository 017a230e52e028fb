import { describe, expect, it } from "vitest";
import { PROBLEM_TYPE, UNKNOWN_ID, createDocument } from "../support/http-expect.js";
import { appPerTest } from "../support/app-per-test.js";
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
  rulesBodyWith as bodyWith,
  type WireOp,
} from "../support/content-patch.js";

/* PATCH …/content, what a request may carry: fields ignored, 400 for a body the rules refuse, the document's id (404, 400). */

const t = appPerTest();

describe("PATCH /documents/{documentId}/content: fields the rules ignore", () => {
  it("ignores an unknown field of the body and of an op", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, { ...body([]), colour: "red", ops: [{ op: "replace", index: 0, count: 1, lines: ["A"], note: "x" }] });

    expectAccepted(response, 2, []);
    expect((await readDocument(t.app, id)).content).toBe("A\nbeta\ngamma");
  });

  it("ignores the count of an insert and the lines of a delete", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([{ op: "insert", index: 0, count: 2, lines: ["top"] }, { op: "delete", index: 1, count: 1, lines: ["ignored"] }]));

    expectAccepted(response, 2, []);
    expect((await readDocument(t.app, id)).content).toBe("top\nalpha\ngamma");
    expect((await t.store.reads(id).version(2))?.ops).toEqual([
      { index: 0, count: 0, lines: ["top"] },
      { index: 1, count: 1, lines: [] },
    ]);
  });
});

describe("PATCH /documents/{documentId}/content: 400 for a request the rules refuse", () => {
  const cases: [string, () => unknown, string][] = [
    ['a line containing "\\n"', () => body([replace(0, 1, "one\ntwo")]), "ops[0]: a line must not contain \\n or \\r, and lines[0] does"],
    ['a line containing "\\r"', () => body([insert(1, "ok", "one\rtwo")]), "ops[0]: a line must not contain \\n or \\r, and lines[1] does"],
    [
      "unsorted ops",
      () => body([replace(2, 1, "G"), replace(0, 1, "A")]),
      "ops[1]: index 0 is less than index 2 of ops[0]; ops must be sorted by index",
    ],
    [
      "overlapping ops",
      () => body([replace(0, 2, "A"), remove(1, 1)]),
      "ops[1]: starts at line 1, inside the range of ops[0], which ends at line 2; ops must not overlap",
    ],
    ["two inserts at one index", () => body([insert(1, "x"), insert(1, "y")]), "ops[1]: a second insert at index 1; at most one insert is allowed at an index"],
    [
      "an insert after a replace at the same index",
      () => body([replace(1, 1, "B"), insert(1, "x")]),
      "ops[1]: starts at line 1, inside the range of ops[0], which ends at line 2; ops must not overlap",
    ],
    [
      "an insert after a delete of nothing at the same index",
      () => body([remove(1, 0), insert(1, "x")]),
      "ops[1]: an insert at index 1 must come before the delete starting there (ops[0]), not after it",
    ],
    ["an insert without lines", () => body([{ op: "insert", index: 0 }]), "ops[0]: an insert needs lines"],
    ["a replace without lines", () => body([{ op: "replace", index: 0, count: 1 }]), "ops[0]: a replace needs lines"],
    ["a replace without count", () => body([{ op: "replace", index: 0, lines: ["A"] }]), "ops[0]: a replace needs count"],
    ["a delete without count", () => body([{ op: "delete", index: 0 }]), "ops[0]: a delete needs count"],
    ["a missing checksum (rule 6)", () => bodyWith("checksum", undefined), "body.checksum: must have required property 'checksum'"],
    ["a checksum without the sha256: prefix", () => bodyWith("checksum", checksumOf(TEXT).slice("sha256:".length)), 'body.checksum: must match pattern "^sha256:[0-9a-f]{64}$"'],
    ["a checksum in upper-case hex", () => bodyWith("checksum", checksumOf(TEXT).toUpperCase()), 'body.checksum: must match pattern "^sha256:[0-9a-f]{64}$"'],
    ["a checksum of the wrong length", () => bodyWith("checksum", `${checksumOf(TEXT)}0`), 'body.checksum: must match pattern "^sha256:[0-9a-f]{64}$"'],
    ["a missing baseVersion", () => bodyWith("baseVersion", undefined), "body.baseVersion: must have required property 'baseVersion'"],
    ["a missing clientId", () => bodyWith("clientId", undefined), "body.clientId: must have required property 'clientId'"],
    ["a missing seq", () => bodyWith("seq", undefined), "body.seq: must have required property 'seq'"],
    ["missing ops", () => bodyWith("ops", undefined), "body.ops: must have required property 'ops'"],
    ["a clientId of 65 characters", () => bodyWith("clientId", "c".repeat(65)), "body.clientId: must NOT have more than 64 characters"],
    ["an empty clientId", () => bodyWith("clientId", ""), "body.clientId: must NOT have fewer than 1 characters"],
    ["a displayName of 65 characters", () => bodyWith("displayName", "d".repeat(65)), "body.displayName: must NOT have more than 64 characters"],
    ["a non-integer index", () => body([{ op: "replace", index: 0.5, count: 1, lines: ["A"] }]), "body.ops.0.index: must be integer"],
    ["an index given as a string", () => body([{ op: "replace", index: "0" as unknown as number, count: 1, lines: ["A"] }]), "body.ops.0.index: must be integer"],
    ["a negative index", () => body([replace(-1, 1, "A")]), "body.ops.0.index: must be >= 0"],
    ["a negative count", () => body([replace(0, -1, "A")]), "body.ops.0.count: must be >= 0"],
    ["an unknown op", () => body([{ op: "move", index: 0, count: 1 } as unknown as WireOp]), "body.ops.0.op: must be equal to constant"],
    ["a negative seq", () => bodyWith("seq", -1), "body.seq: must be >= 0"],
    ["a milestone that is not a boolean", () => bodyWith("milestone", "yes"), "body.milestone: must be boolean"],
  ];

  it.each(cases)("answers 400 for %s, and writes nothing", async (_name, make, detail) => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, make());

    expectProblem(response, "invalid-request", contentUrl(id), detail);
    expect((await readDocument(t.app, id)).version).toBe(1);
  });

  it("accepts a clientId and a displayName of exactly 64 characters, and records both", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    const clientId = "c".repeat(64);
    const displayName = "😀".repeat(32);

    expectAccepted(await patchContent(t.app, id, body([replace(0, 1, "A")], { clientId, displayName, milestone: true })), 2);
    expect((await readHistory(t.app, id))[1]).toMatchObject({ version: 2, clientId, displayName });
  });

  it("answers 400 for a line with a lone surrogate, which is not well-formed Unicode", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    const json = JSON.stringify(body([insert(0, "x")])).replace('"x"', '"\\ud800"');

    const response = await t.app.inject({ method: "PATCH", url: contentUrl(id), headers: { "content-type": "application/json" }, payload: json });

    expectProblem(response, "invalid-request", contentUrl(id), "a line is not well-formed Unicode (a lone surrogate)");
  });

  it.each([
    ["clientId", '"\\ud800"'],
    ["displayName", '"Ann \\udfff"'],
  ] as const)("answers 400 for a %s with a lone surrogate, and records nothing", async (field, source) => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    const json = JSON.stringify(body([insert(0, "x")], { [field]: "LONE" })).replace('"LONE"', source);

    const response = await t.app.inject({ method: "PATCH", url: contentUrl(id), headers: { "content-type": "application/json" }, payload: json });

    expectProblem(response, "invalid-request", contentUrl(id), `${field} is not well-formed Unicode (a lone surrogate)`);
    expect((await readHistory(t.app, id)).map((entry) => entry.version)).toEqual([1]);
  });

  it("answers 400 for a request without a body", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await t.app.inject({ method: "PATCH", url: contentUrl(id) });

    expect({ status: response.statusCode, type: response.json<{ type: string }>().type }).toEqual({ status: 400, type: "urn:folio:problem:invalid-request" });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await t.app.inject({ method: "PATCH", url: contentUrl(id), headers: { "content-type": "application/json" }, payload: "{ops:" });

    expect({ status: response.statusCode, type: response.headers["content-type"], code: response.json<{ type: string }>().type }).toEqual({
      status: 400,
      type: PROBLEM_TYPE,
      code: "urn:folio:problem:invalid-request",
    });
  });
});

describe("PATCH /documents/{documentId}/content: the document", () => {
  it("answers 404 for an unknown document", async () => {
    const response = await patchContent(t.app, UNKNOWN_ID, body([replace(0, 1, "A")]));

    expectProblem(response, "not-found", contentUrl(UNKNOWN_ID), `no document ${UNKNOWN_ID}`);
  });

  it("answers 404 for a deleted document, and writes nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expect((await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${id}` })).statusCode).toBe(204);

    const response = await patchContent(t.app, id, body([replace(0, 1, "A")], { baseVersion: 2 }));

    expectProblem(response, "not-found", contentUrl(id), `no document ${id}`);
    expect((await readHistory(t.app, id)).map((entry) => entry.changeType)).toEqual(["CREATED", "DELETED"]);
  });

  it("answers 400 for a malformed UUID", async () => {
    const response = await patchContent(t.app, "not-a-uuid", body([replace(0, 1, "A")]));

    expectProblem(response, "invalid-request", contentUrl("not-a-uuid"), 'params.documentId: must match format "uuid"');
  });

  it("answers 400 for a UUID with a urn:uuid: prefix, which is not the canonical form", async () => {
    const urn = `urn:uuid:${(await createDocument(t.app, { title: "Notes", content: TEXT })).id}`;
    const response = await patchContent(t.app, urn, body([replace(0, 1, "A")]));

    expectProblem(response, "invalid-request", contentUrl(urn), 'params.documentId: must match format "uuid"');
  });

  it.each([
    ["seq", 1e308, "body.seq: must be <= 9007199254740991"],
    ["seq", 2 ** 53, "body.seq: must be <= 9007199254740991"],
    ["baseVersion", 2 ** 53, "body.baseVersion: must be <= 9007199254740991"],
  ])("answers 400 for %s = %d, beyond what a JavaScript number carries exactly", async (field, value, detail) => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, bodyWith(field, value));

    expectProblem(response, "invalid-request", contentUrl(id), detail);
    expect((await readHistory(t.app, id)).map((entry) => entry.version)).toEqual([1]);
  });
});
