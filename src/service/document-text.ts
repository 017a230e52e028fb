import { applyOps } from "../core/apply-ops.js";
import { joinLines, splitLines } from "../core/lines.js";
import type { DocumentReads } from "../storage/store.js";

/** The reads a text rebuild needs: a store's reads, a document transaction, or a working document. */
export type TextSource = Pick<DocumentReads, "fullTextAtOrBefore" | "versions">;

/** A text rebuilt at a version, with the version of the full text it started from. */
export interface RebuiltText {
  /** The exact stored text when the version has one, else the LF-joined lines. */
  text: string;
  lines: string[];
  basisVersion: number;
}

/**
 * The text at `version`: the newest full text at or before it plus the ops after it.
 * `undefined` when the ops it needs were compacted away.
 */
export async function rebuildText(source: TextSource, version: number): Promise<RebuiltText | undefined> {
  const basis = await source.fullTextAtOrBefore(version);
  if (!basis) return undefined;
  let lines = splitLines(basis.text);
  if (basis.version === version) return { text: basis.text, lines, basisVersion: basis.version };
  for (const record of await source.versions(basis.version, version)) {
    if (record.ops === null) return undefined;
    const applied = applyOps(lines, record.ops);
    if (!applied.ok) throw new Error(`stored ops of version ${record.version} of ${record.documentId} do not apply: ${applied.message}`);
    lines = applied.lines;
  }
  return { text: joinLines(lines), lines, basisVersion: basis.version };
}
