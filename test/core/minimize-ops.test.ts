import { describe, expect, it } from "vitest";
import { minimizeOps } from "../../src/core/minimize-ops.js";
import { rebaseOps } from "../../src/core/rebase-ops.js";

const base = ["L0", "L1", "L2", "L3", "L4"];

describe("minimizeOps", () => {
  it("drops an op that rewrites lines with their own content", () => {
    expect(minimizeOps(base, [{ index: 1, count: 2, lines: ["L1", "L2"] }])).toEqual([]);
  });

  it("narrows a replace to the lines it changes", () => {
    expect(minimizeOps(base, [{ index: 1, count: 3, lines: ["L1", "X", "L3"] }])).toEqual([{ index: 2, count: 1, lines: ["X"] }]);
  });

  it("finds the change of touching ops that undo part of each other", () => {
    expect(
      minimizeOps(base, [
        { index: 2, count: 0, lines: ["L2"] },
        { index: 2, count: 2, lines: ["Y"] },
      ]),
    ).toEqual([{ index: 3, count: 1, lines: ["Y"] }]);
  });

  it("removes the overlap that a no-change rewrite would cause in a rebase", () => {
    // git merge-file merges these cleanly (L2 → F and L4 → S, with L3 untouched between them): the
    // submitted side did not really change L2 and L3. The rebase rule judges the ranges only, so on the
    // raw ops it reports an overlap; minimized, the rebase succeeds with git's result.
    const foreign = [{ index: 2, count: 1, lines: ["F"] }];
    const submitted = [{ index: 2, count: 3, lines: ["L2", "L3", "S"] }];
    expect(rebaseOps(foreign, submitted).ok).toEqual(false);
    expect(rebaseOps(minimizeOps(base, foreign), minimizeOps(base, submitted))).toEqual({
      ok: true,
      ops: [{ index: 4, count: 1, lines: ["S"] }],
    });
  });

  it("reads a line put in beside a like line as put in before it (hung on it from above), so typing in that line stays in it", () => {
    // Bob's new empty line hangs on Ann's empty line below "Steps"; Ann types "a1" in hers at once.
    const lines = ["Launch", "Steps", "", "Done"];
    const foreign = [{ index: 2, count: 1, lines: ["", ""] }];
    expect(minimizeOps(lines, foreign)).toEqual([{ index: 2, count: 0, lines: [""] }]);
    expect(rebaseOps(minimizeOps(lines, foreign), [{ index: 2, count: 1, lines: ["a1"] }])).toEqual({ ok: true, ops: [{ index: 3, count: 1, lines: ["a1"] }] });
    // Lines that only end like the line they replace read so anyway.
    expect(minimizeOps(lines, [{ index: 2, count: 1, lines: ["x", ""] }])).toEqual([{ index: 2, count: 0, lines: ["x"] }]);
  });
});
