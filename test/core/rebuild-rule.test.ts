import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";
import { rebaseOps } from "../../src/core/rebase-ops.js";
import { applyRebased, droppedAsAlreadyMade, rebasePatch, rebuildAfterPatch } from "../../src/core/rebuild-rule.js";

const op = (index: number, count: number, ...lines: string[]): NormalizedOp => ({ index, count, lines });

describe("rebasePatch: the ladder of the rebuild rule", () => {
  it("rebases ops that do not overlap as they are and answers the foreign ops unchanged", () => {
    const foreign = [op(0, 1, "A")];
    expect(rebasePatch(foreign, [op(2, 1, "C")])).toEqual({ ok: true, ops: [op(2, 1, "C")], opsSinceBase: foreign });
  });

  it("asks for the base text when the ops overlap as they are", () => {
    expect(rebasePatch([op(1, 1, "B")], [op(0, 3, "a", "b", "C")])).toEqual({ ok: false, needsBase: true });
  });

  it("takes a coarse hunk that rewrites lines with their own content apart against the base text", () => {
    const base = ["a", "b", "c"];
    expect(rebasePatch([op(1, 1, "B")], [op(0, 3, "a", "b", "C")], base)).toEqual({ ok: true, ops: [op(2, 1, "C")], opsSinceBase: [op(1, 1, "B")] });
  });

  it("answers the minimized foreign ops: versions that undid each other leave nothing to overlap", () => {
    const base = ["a", "b", "c"];
    // Composed, two versions that changed b and changed it back still cover line 1.
    expect(rebasePatch([op(1, 1, "b")], [op(1, 1, "x")], base)).toEqual({ ok: true, ops: [op(1, 1, "x")], opsSinceBase: [] });
  });

  it("records a patch that empties the text like a foreign version that emptied it: the same change", () => {
    const base = ["a", "b"];
    expect(rebasePatch([op(0, 2, "")], [op(0, 2)], base)).toEqual({ ok: true, ops: [], opsSinceBase: [op(0, 2, "")] });
  });

  it("reports a true overlap with the minimized foreign ops", () => {
    const base = ["a", "b", "c"];
    expect(rebasePatch([op(0, 2, "a", "B")], [op(1, 1, "x")], base)).toEqual({ ok: false, needsBase: false, opsSinceBase: [op(1, 1, "B")] });
  });
});

describe("applyRebased", () => {
  it("records ops that take out every line as putting the one empty line in", () => {
    expect(applyRebased(["a", "b"], [op(0, 2)])).toEqual({ ok: true, lines: [""], ops: [op(0, 2, "")] });
  });

  it("answers a range outside the text as not ok", () => {
    expect(applyRebased(["a"], [op(3, 1)]).ok).toBe(false);
  });
});

describe("rebuildAfterPatch: the client's half", () => {
  it("rebuilds the service's text for the coarse stale patch of the protocol flaw (a B C, not a b C)", () => {
    const base = ["a", "b", "c"];
    const submitted = [op(0, 3, "a", "b", "C")];
    const opsSinceBase = [op(1, 1, "B")];
    expect(rebuildAfterPatch(base, submitted, opsSinceBase)).toEqual({ ok: true, lines: ["a", "B", "C"] });
    // What a client gets by applying opsSinceBase and then its own ops as submitted: the flaw.
    const naive = applyOps((applyOps(base, opsSinceBase) as { lines: string[] }).lines, submitted);
    expect(naive).toEqual({ ok: true, lines: ["a", "b", "C"] });
    expect(rebaseOps(opsSinceBase, submitted).ok).toBe(false);
  });

  it("applies the submitted ops to the base when opsSinceBase is empty", () => {
    expect(rebuildAfterPatch(["a", "b"], [op(1, 1, "B")], [])).toEqual({ ok: true, lines: ["a", "B"] });
  });

  it("keeps the text when every submitted change was already made", () => {
    expect(rebuildAfterPatch(["a", "b"], [op(1, 1, "B")], [op(1, 1, "B")])).toEqual({ ok: true, lines: ["a", "B"] });
  });

  it("reports opsSinceBase that do not fit the base", () => {
    expect(rebuildAfterPatch(["a"], [], [op(4, 1)])).toMatchObject({ ok: false });
  });

  it("reports a patch the service could not have accepted", () => {
    expect(rebuildAfterPatch(["a", "b"], [op(1, 1, "x")], [op(1, 1, "y")])).toMatchObject({ ok: false });
  });
});

describe("droppedAsAlreadyMade: what the service kept once", () => {
  it("is true when a hunk of the patch is one that a version since its base made the same way", () => {
    // Both typed a blank at the end of line 1 at once: the second patch's line is dropped.
    expect(droppedAsAlreadyMade(["a", "b"], [op(1, 1, "b ")], [op(1, 1, "b ")])).toBe(true);
    // Only one of two hunks made already: still true (the other is applied).
    expect(droppedAsAlreadyMade(["a", "b", "c"], [op(0, 1, "A"), op(2, 1, "C")], [op(2, 1, "C")])).toBe(true);
  });

  it("is false when nothing happened since the base, when the changes differ, and when they overlap (a 409)", () => {
    expect(droppedAsAlreadyMade(["a", "b"], [op(1, 1, "b ")], [])).toBe(false);
    expect(droppedAsAlreadyMade(["a", "b"], [op(1, 1, "b ")], [op(0, 1, "a ")])).toBe(false);
    expect(droppedAsAlreadyMade(["a", "b"], [op(1, 1, "b x")], [op(1, 1, "b y")])).toBe(false);
  });

  it("follows the ladder: a coarse patch that rewrites a line unchanged, minimized, matches the foreign change", () => {
    expect(droppedAsAlreadyMade(["a", "b", "c"], [op(0, 2, "a", "B")], [op(1, 1, "B")])).toBe(true);
  });
});
