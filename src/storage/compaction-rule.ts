// What compaction clears, stated once for both adapters (docs/interface.md#compaction-and-retention):
// a sync version (not a milestone) created before the cutoff, below the document's head and below
// its snapshot, loses its ops and any text it carried; its checksum, title and metadata stay.
// Milestones and the deletion record (a milestone) keep their ops and text, and so does a version
// that a live receipt refers to (see receiptReaching). The SQL below is
// written in the dialect SQLite and PostgreSQL share; `cutoff` is the adapter's placeholder.

/** The columns compaction clears on a compactable version. */
export const COMPACTION_CLEARS = "ops = NULL, text = NULL";

/**
 * A compactable version `v` of document `d` whose snapshot is `s` (joined on the document). The
 * snapshot must be newer than the version: the head is rebuilt from the snapshot and later ops.
 */
export function compactableVersion(cutoff: string): string {
  return `NOT v.milestone AND v.ops IS NOT NULL AND v.created_at < ${cutoff} AND v.version < d.version AND v.version < s.version
    AND NOT EXISTS (${receiptReaching("v")})`;
}

/**
 * A receipt that keeps only a reference to the versions its patch was shifted over reaches into
 * version `v`: compaction leaves those ops alone while the receipt exists, since a repeat composes
 * its answer from them again. Compaction deletes the expired receipts after the versions, so a
 * receipt expiring in a run still keeps its versions in that run (they go in the next one); the
 * index on (document_id, shifted_base) makes this a short range read, as receipts rarely refer to
 * versions old enough to compact (docs/architecture.md, "Receipts").
 */
function receiptReaching(v: string): string {
  return `SELECT 1 FROM patch_receipts r
      WHERE r.document_id = ${v}.document_id AND r.shifted_base < ${v}.version AND r.shifted_through >= ${v}.version`;
}

/**
 * Documents holding versions compaction would clear but for a snapshot that is not newer than
 * them (`s` left-joined): the compactor snapshots these first.
 */
export function documentsNeedingSnapshot(cutoff: string): string {
  return `SELECT DISTINCT d.id AS id FROM documents d
       JOIN versions v ON v.document_id = d.id
       LEFT JOIN snapshots s ON s.document_id = d.id
       WHERE NOT v.milestone AND v.ops IS NOT NULL AND v.created_at < ${cutoff} AND v.version < d.version
         AND v.version >= coalesce(s.version, 0)
       ORDER BY d.id`;
}
