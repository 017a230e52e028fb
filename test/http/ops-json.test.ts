import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { composeOps } from "../../src/core/compose-ops.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { Ajv } from "ajv";
import { ChangeFeedContentSchema, ChangeFeedDiffSchema, ChangeFeedSchema } from "../../src/api/changes.js";
import { changeFeedJson, opsJson } from "../../src/http/ops-json.js";
import { prng } from "../support/prng.js";

// The acknowledgement's ops are written by hand (src/http/ops-json.ts), not by the schema's
// serializer: the text must be the JSON of their wire form, for any line.

const SEED = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : randomInt(2 ** 31);
const PIECES = ["plain", '"quoted"', "back\\slash", "tab\there", "\u0000", "\u001f", "\u2028\u2029", "😀", "é", "</script>", ""];

describe(`opsJson (seed ${SEED}, replay with FOLIO_SEED=${SEED})`, () => {
  it("writes the JSON of the ops' wire form, inserts, deletes and replaces, whatever their lines hold", () => {
    const random = prng(SEED);
    const pick = () => PIECES[Math.floor(random() * PIECES.length)]!;
    for (let round = 0; round < 200; round++) {
      let index = 0;
      const ops: NormalizedOp[] = Array.from({ length: Math.floor(random() * 6) }, () => {
        index += 1 + Math.floor(random() * 3);
        const kind = Math.floor(random() * 3);
        const lines = kind === 1 ? [] : Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick() + pick());
        const op = { index, count: kind === 0 ? 0 : 1 + Math.floor(random() * 2), lines };
        index += op.count;
        return op;
      });
      const expected = JSON.stringify(ops.map(toLineOperation));
      expect(opsJson(ops), `seed ${SEED}, round ${round}`).toBe(expected);
      expect(JSON.parse(opsJson(ops))).toEqual(ops.map(toLineOperation));
    }
  });

  it("writes the ops of a composition that shares its lines with the versions it is made of", () => {
    const version2 = [{ index: 3, count: 1, lines: ['three "3"'] }];
    const version3 = [{ index: 0, count: 0, lines: ["top"] }, { index: 6, count: 2, lines: [] }];
    expect(opsJson(version2)).toBe('[{"op":"replace","index":3,"count":1,"lines":["three \\"3\\""]}]');
    const composed = composeOps(version2, version3);
    expect(opsJson(composed)).toBe(
      '[{"op":"insert","index":0,"lines":["top"]},{"op":"replace","index":3,"count":1,"lines":["three \\"3\\""]},{"op":"delete","index":6,"count":2}]',
    );
    expect(opsJson([])).toBe("[]");
  });
});

describe("changeFeedJson", () => {
  const ajv = new Ajv({ strict: false, logger: false });
  const shapes = { feed: ajv.compile(ChangeFeedSchema), diff: ajv.compile(ChangeFeedDiffSchema), content: ajv.compile(ChangeFeedContentSchema) };
  const shapesOf = (json: string) => {
    const value: unknown = JSON.parse(json);
    return { feed: shapes.feed(value), diff: shapes.diff(value), content: shapes.content(value) };
  };
  const events = [
    { version: 3, changeType: "UPDATED" as const, clientId: "ada", displayName: 'Ada "A"' },
    { version: 4, changeType: "RENAMED" as const, title: "New\u2028title" },
  ];

  it("writes a diff answer as a ChangeFeedDiff, required keys first as the schema serializer did", () => {
    const json = changeFeedJson({ fromVersion: 2, currentVersion: 4, ops: [{ index: 1, count: 1, lines: ["b"] }], events });

    expect(json).toBe(
      `{"currentVersion":4,"events":${JSON.stringify(events)},"fromVersion":2,"ops":[{"op":"replace","index":1,"count":1,"lines":["b"]}]}`,
    );
    expect(shapesOf(json)).toEqual({ feed: true, diff: true, content: false });
  });

  it("writes a full-text answer as a ChangeFeedContent, whatever the text holds", () => {
    const content = 'a "quoted"\nline\u0000\u2028😀';
    const json = changeFeedJson({ currentVersion: 4, content, events: [] });

    expect(JSON.parse(json)).toEqual({ currentVersion: 4, content, events: [] });
    expect(json).toBe(`{"currentVersion":4,"events":[],"content":${JSON.stringify(content)}}`);
    expect(shapesOf(json)).toEqual({ feed: true, diff: false, content: true });
  });

  it("refuses an answer with neither a diff nor a text", () => {
    expect(() => changeFeedJson({ currentVersion: 4, events: [] })).toThrow("a feed answer carries either ops from a version or the content");
  });
});
