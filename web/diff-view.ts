/** The history's diff on screen: one row per line, changed lines marked and their changed characters highlighted. */
import h from "crelt";
import type { DiffRow } from "./version-diff.js";

const SIGNS = { same: " ", removed: "−", added: "+" } as const;
const SPOKEN = { removed: "removed: ", added: "added: " } as const;

export function diffView(rows: readonly DiffRow[]): HTMLElement {
  if (rows.every((row) => row.kind === "skipped" || row.kind === "same")) {
    return h("p", { class: "diff-none muted" }, "The text did not change.");
  }
  const lines = rows.map((row) => {
    if (row.kind === "skipped") return h("div", { class: "diff-row diff-skipped" }, `… ${row.count} unchanged line${row.count === 1 ? "" : "s"}`);
    const number = h("span", { class: "diff-number", "aria-hidden": "true" }, String(row.line));
    if (row.kind === "same") return h("div", { class: "diff-row diff-same" }, number, h("span", { class: "diff-sign", "aria-hidden": "true" }, SIGNS.same), h("span", { class: "diff-text" }, row.text));
    // Changed characters are <del> / <ins> inside their line, so that they read as such without colour too.
    const text = row.pieces.map((piece) => (piece.kind === "same" ? piece.text : h(piece.kind === "removed" ? "del" : "ins", {}, piece.text)));
    return h(
      "div",
      { class: `diff-row diff-${row.kind}` },
      number,
      h("span", { class: "diff-sign", "aria-hidden": "true" }, SIGNS[row.kind]),
      h("span", { class: "diff-text" }, h("span", { class: "visually-hidden" }, SPOKEN[row.kind]), ...text),
    );
  });
  return h("div", { class: "version-diff" }, ...lines);
}
