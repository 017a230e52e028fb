import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../src/client/index.js";
import { entryLabel } from "../../web/history-labels.js";
import { diffCounts, versionDiff } from "../../web/version-diff.js";

describe("the history's diff of a version against the one before it", () => {
  it("marks the changed line and, within it, the changed characters; unchanged lines around it stay", () => {
    expect(versionDiff("Launch\n  [ ] Write notes\n  [ ] Test upgrade", "Launch\n  [x] Write notes\n  [ ] Test upgrade")).toEqual([
      { kind: "same", line: 1, text: "Launch" },
      { kind: "removed", line: 2, pieces: [{ kind: "same", text: "  [" }, { kind: "removed", text: " " }, { kind: "same", text: "] Write notes" }] },
      { kind: "added", line: 2, pieces: [{ kind: "same", text: "  [" }, { kind: "added", text: "x" }, { kind: "same", text: "] Write notes" }] },
      { kind: "same", line: 3, text: "  [ ] Test upgrade" },
    ]);
  });

  it("counts the unchanged lines far from any change, and numbers lines of the newer text after an insertion", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h"].join("\n");
    const after = ["new", "a", "b", "c", "d", "e", "f", "g", "H"].join("\n");
    expect(versionDiff(before, after)).toEqual([
      { kind: "added", line: 1, pieces: [{ kind: "same", text: "new" }] },
      { kind: "same", line: 2, text: "a" },
      { kind: "same", line: 3, text: "b" },
      { kind: "skipped", count: 3 },
      { kind: "same", line: 7, text: "f" },
      { kind: "same", line: 8, text: "g" },
      { kind: "removed", line: 8, pieces: [{ kind: "removed", text: "h" }] },
      { kind: "added", line: 9, pieces: [{ kind: "added", text: "H" }] },
    ]);
  });

  it("shows a lone unchanged line between two changes instead of counting it", () => {
    const rows = versionDiff("a\nb\nc\nd\ne\nf\ng", "A\nb\nc\nd\ne\nf\nG");
    expect(rows.filter((row) => row.kind === "same").map((row) => (row.kind === "same" ? row.text : ""))).toEqual(["b", "c", "d", "e", "f"]);
    expect(rows.some((row) => row.kind === "skipped")).toEqual(false);
  });

  it("shows a first text as added lines only, a deleted text as removed lines only, and no change as skipped lines", () => {
    expect(versionDiff("", "one\ntwo")).toEqual([
      { kind: "added", line: 1, pieces: [{ kind: "same", text: "one" }] },
      { kind: "added", line: 2, pieces: [{ kind: "same", text: "two" }] },
    ]);
    expect(diffCounts(versionDiff("one\ntwo\nthree", ""))).toEqual({ removed: 3, added: 0 });
    expect(versionDiff("x\ny\nz\nw\nv\nu", "x\ny\nz\nw\nv\nu")).toEqual([{ kind: "skipped", count: 6 }]);
  });
});

describe("the history's names for its entries", () => {
  const entry = (version: number, changeType: HistoryEntry["changeType"], clientId?: string): HistoryEntry => ({
    documentId: "00000000-0000-4000-8000-000000000000",
    version,
    title: "Plan",
    content: "",
    changeType,
    timestamp: "2026-01-05T10:00:00.000Z",
    ...(clientId ? { clientId } : {}),
  });

  it("calls the newest edit the current text, an earlier one a saved version, and one this page saved a saved version always", () => {
    expect(entryLabel(entry(7, "UPDATED", "c1"), true, new Set())).toEqual("Current text");
    expect(entryLabel(entry(7, "UPDATED", "c1"), true, new Set([7]))).toEqual("Saved version");
    expect(entryLabel(entry(5, "UPDATED", "c1"), false, new Set())).toEqual("Saved version");
    expect(entryLabel(entry(4, "UPDATED"), false, new Set())).toEqual("Text replaced");
    expect(["CREATED", "RENAMED", "DELETED", "RESTORED", "ROLLED_BACK"].map((type) => entryLabel(entry(2, type as HistoryEntry["changeType"]), true, new Set()))).toEqual([
      "Created",
      "Renamed to “Plan”",
      "Deleted",
      "Restored",
      "Rolled back",
    ]);
  });
});
