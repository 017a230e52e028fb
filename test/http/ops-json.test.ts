import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { composeOps } from "../../src/core/compose-ops.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { opsJson } from "../../src/http/ops-json.js";
import { prng } from "../support/prng.js";

// The acknowledgement's ops are written by hand (src/http/ops-json.ts), not by the schema's
// serializer: the text must be the JSON of their wire form, for any line, also when it is written
// again from the JSON kept for a lines array.

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
      expect(opsJson(ops), `seed ${SEED}, round ${round}, again`).toBe(expected);
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
