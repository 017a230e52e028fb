import type { StagedWrites } from "../staged-writes.js";
import type { Statements } from "./sqlite-statements.js";
import { storedOps } from "../row-shapes.js";
import { encodeFullText } from "./sqlite-rows.js";

/** The longest ops JSON kept in the receipt's own row (characters); longer ones are referenced. */
export const RECEIPT_OPS_INLINE = 200;

/**
 * The statements that write what `staged` holds, to run inside the group commit's transaction
 * (see group-commit.ts). The document's writers are serialized in-process, so the stored head read
 * here is the one the work saw.
 */
export function stagedStatements(sql: Statements, staged: StagedWrites): (() => void)[] {
  staged.finish();
  if (staged.empty) return [];
  const id = staged.documentId;
  return [
    () => {
      if (staged.versions.length > 0) staged.checkFollows(sql.storedHead.get(id)?.head ?? 0);
      const document = staged.document;
      if (document) sql.putDocument.run({ ...document, deleted: document.deleted ? 1 : 0 });
      for (const version of staged.versions) {
        sql.appendVersion.run({
          ...version,
          milestone: version.milestone ? 1 : 0,
          clientId: version.clientId ?? null,
          displayName: version.displayName ?? null,
          ops: version.ops === null ? null : JSON.stringify(version.ops),
          text: version.text === null ? null : encodeFullText(version.text),
        });
      }
      let marked = 0;
      for (const [version, text] of staged.marks) marked += sql.markMilestone.run(encodeFullText(text), id, version).changes;
      staged.checkMarked(marked);
      const snapshot = staged.snapshot;
      if (snapshot) sql.putSnapshot.run(id, snapshot.version, encodeFullText(snapshot.text));
      for (const receipt of staged.receipts) {
        const shifted = receipt.shiftedOver;
        const ops = shifted ? "" : storedOps(receipt);
        // Large ops go to their own table (sqlite-migrations.ts, the second migration): the keyed receipts stay small rows.
        const ref = ops.length > RECEIPT_OPS_INLINE ? sql.putReceiptOps.run(ops).lastInsertRowid : null;
        sql.putReceipt.run(
          receipt.documentId,
          receipt.clientId,
          receipt.seq,
          receipt.requestHash,
          receipt.version,
          ref === null ? ops : "",
          receipt.createdAt,
          ref,
          shifted?.base ?? null,
          shifted?.through ?? null,
        );
      }
    },
  ];
}
