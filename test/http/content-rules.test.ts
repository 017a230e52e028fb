import { describe, expect, it } from "vitest";
import { PROBLEM_TYPE, UNKNOWN_ID, createDocument } from "../support/http-expect.js";
import { appPerTest } from "../support/app-per-test.js";
import { buildTestApp } from "../support/test-app.js";
import { DOCUMENTS, checksumOf, contentUrl, expectAccepted, expectProblem, insert, patchContent, readDocument, readHistory, remove, replace, type PatchBody, type WireOp } from "../support/content-patch.js";

const t = appPerTest();

const TEXT = "alpha\nbeta\ngamma";

/** A patch of `TEXT` at version 1 by client-a, seq 1, with `changes` on top. */
function body(ops: WireOp[], changes: Partial<PatchBody> = {}): PatchBody {
  return { baseVersion: 1, checksum: checksumOf(TEXT), clientId: "client-a", seq: 1, ops, ...changes };
}

/** The body with one field replaced by anything (a wrong type) or left out (`undefined`). */
function bodyWith(field: string, value: unknown): Record<string, unknown> {
  const result: Record<string, unknown> = { ...body([replace(0, 1, "ALPHA")]) };
  if (value === undefined) delete result[field];
  else result[field] = value;
  return result;
}

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

describe("PATCH /documents/{documentId}/content: rule 4, 422 when the base does not fit", () => {
  it("answers 422 when the checksum of a current base does not match, and writes nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([replace(0, 1, "A")], { checksum: checksumOf("alpha\nbeta") }));

    expectProblem(response, "checksum-mismatch", contentUrl(id), "checksum does not match the text of base version 1; reload the document");
    expect(await readDocument(t.app, id)).toMatchObject({ version: 1, content: TEXT });
  });

  it("answers 422 when the checksum of a stale base does not match that base's text", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([replace(0, 1, "A")])), 2, []);

    // The checksum of the current text is not the checksum of base version 1.
    const response = await patchContent(t.app, id, body([replace(2, 1, "G")], { seq: 2, checksum: checksumOf("A\nbeta\ngamma") }));

    expectProblem(response, "checksum-mismatch", contentUrl(id), "checksum does not match the text of base version 1; reload the document");
    expect(await readDocument(t.app, id)).toMatchObject({ version: 2, content: "A\nbeta\ngamma" });
  });

  it("answers 422 when a range of a current base reaches past the end of the text", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([replace(2, 2, "G")]));

    expectProblem(response, "range-outside-text", contentUrl(id), "ops[0]: the range [2, 4) reaches past the end of the text, which has 3 lines");
    expect((await readDocument(t.app, id)).version).toBe(1);
  });

  it("answers 422 when an insert of a current base lies beyond the append position", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([insert(4, "far")]));

    expectProblem(response, "range-outside-text", contentUrl(id), "ops[0]: index 4 is outside the text, which has 3 lines");
  });

  it("answers 422 when a range of a stale base lies outside that base, although it would fit the longer current text", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([insert(3, "delta", "epsilon")])), 2, []);

    const response = await patchContent(t.app, id, body([replace(3, 1, "D")], { seq: 2 }));

    expectProblem(response, "range-outside-text", contentUrl(id), "op at index 3 with count 1 is outside the base text of 3 lines");
    expect((await readDocument(t.app, id)).version).toBe(2);
  });

  it("answers 422 when an insert of a stale base lies beyond that base's append position", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([insert(3, "delta")])), 2, []);

    const response = await patchContent(t.app, id, body([insert(4, "far")], { seq: 2 }));

    expectProblem(response, "range-outside-text", contentUrl(id), "op at index 4 with count 0 is outside the base text of 3 lines");
  });

  it("answers 422 when the base version is ahead of the head", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([replace(0, 1, "A")], { baseVersion: 2 }));

    expectProblem(response, "base-unavailable", contentUrl(id), "base version 2 does not exist; the current version is 1");
  });

  it("answers 422 when the base version is 0", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([insert(0, "A")], { baseVersion: 0, checksum: checksumOf("") }));

    expectProblem(response, "base-unavailable", contentUrl(id), "base version 0 does not exist; the current version is 1");
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

describe("PATCH /documents/{documentId}/content: the size limit", () => {
  // Its own app, with a small limit (the file's default app is built too, as for every test).
  const t = appPerTest({ config: (config) => (config.documents.maxContentBytes = 20) });

  it("answers 413 when the patched content would exceed max-content-bytes, and writes nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "0123456789" })).id;

    const response = await patchContent(t.app, id, { ...body([insert(1, "abcdefghij")]), checksum: checksumOf("0123456789") });

    expectProblem(response, "content-too-large", contentUrl(id), "the patched content would be 21 bytes; the limit is 20");
    expect(await readDocument(t.app, id)).toMatchObject({ version: 1, content: "0123456789" });
  });

  it("answers 413 for a request body far larger than the service accepts", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "0123456789" })).id;

    const response = await patchContent(t.app, id, { ...body([insert(1, "x".repeat(100_000))]), checksum: checksumOf("0123456789") });

    expectProblem(response, "content-too-large", contentUrl(id), "the request body is larger than the service accepts");
  });

  it("accepts a patched content of exactly max-content-bytes, counted in UTF-8 bytes", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "0123456789" })).id;

    // "ä" is two UTF-8 bytes: 10 + 1 (the newline) + 9 = 20 bytes.
    const response = await patchContent(t.app, id, { ...body([insert(1, "ääää-")]), checksum: checksumOf("0123456789") });

    expectAccepted(response, 2);
    expect((await readDocument(t.app, id)).content).toBe("0123456789\nääää-");
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
