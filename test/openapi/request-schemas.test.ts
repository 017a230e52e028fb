import { describe, expect, it } from "vitest";
import { ContentPatchRequest } from "../../src/api/content.js";
import { DocumentCreateRequest, TitlePatchRequest } from "../../src/api/documents.js";
import { compileValidator } from "../../src/http/validator.js";

// The request schemas hold what the service checks wherever JSON Schema can say it, so that the
// document tells clients: a title of white space only, an empty ops list without milestone. The
// service's answers stay what they were (test/http/documents-create.test.ts,
// documents-get-put-delete.test.ts, content-rules-*.test.ts).

const body = (schema: object) => compileValidator({ schema, method: "POST", url: "/", httpPart: "body" }) as (value: unknown) => boolean;

const patch = (fields: object) => ({ baseVersion: 1, checksum: `sha256:${"0".repeat(64)}`, clientId: "c", seq: 1, ...fields });
const insert = { op: "insert", index: 0, lines: ["a"] };

describe("the request schemas", () => {
  it("take a title with something besides white space, and refuse one of white space only", () => {
    const create = body(DocumentCreateRequest);
    const rename = body(TitlePatchRequest);

    expect(["Plan", " a ", "\u00a0x"].map((title) => create({ title, content: "" }))).toEqual([true, true, true]);
    expect([" ", "\t\n", "\u00a0\u2028\u3000\ufeff"].map((title) => create({ title, content: "" }))).toEqual([false, false, false]);
    expect(rename({ title: "   ", expectedVersion: 1 })).toBe(false);
  });

  it("take an empty ops list only with milestone: true", () => {
    const validate = body(ContentPatchRequest);

    expect([
      validate(patch({ ops: [insert] })),
      validate(patch({ ops: [insert], milestone: false })),
      validate(patch({ ops: [], milestone: true })),
      validate(patch({ ops: [] })),
      validate(patch({ ops: [], milestone: false })),
    ]).toEqual([true, true, true, false, false]);
  });
});
