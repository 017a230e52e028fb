import type { DocumentReads, DocumentRecord, DocumentTransaction, DocumentWrites, PatchReceipt, Snapshot, VersionRecord } from "./store.js";

/**
 * The writes of one {@link Store.write}, staged in memory until the work function returns, with
 * the guards every adapter needs: nothing is staged once the write is over (a promise the work
 * left running), nothing for another document, and versions only in sequence. Each adapter flushes
 * what is staged in its own way and calls {@link StagedWrites.checkFollows} with the stored head.
 */
export class StagedWrites implements DocumentWrites {
  // A head row and a snapshot are whole-row replacements: only the last one staged matters.
  document: DocumentRecord | undefined;
  snapshot: Snapshot | undefined;
  readonly versions: VersionRecord[] = [];
  /** Milestone marks on versions committed before this write (marks on staged ones are applied to them). */
  readonly marks = new Map<number, string>();
  readonly receipts: PatchReceipt[] = [];
  private failure: Error | undefined;
  private sealed = false;

  constructor(readonly documentId: string) {}

  putDocument(document: DocumentRecord): void {
    this.checkOpen();
    this.checkOwn(document.id, "putDocument");
    this.document = { ...document };
  }

  appendVersion(version: VersionRecord): void {
    this.checkOpen();
    this.checkOwn(version.documentId, "appendVersion");
    // Staged versions must follow each other here; that the first follows the stored head is
    // checked at the flush, against the head as stored under the document's lock.
    const last = this.versions.at(-1);
    if (last && version.version !== last.version + 1) {
      // Remembered as well as thrown: work that swallows the error must not commit a gap or a duplicate.
      this.failure = notNext(version.version, this.documentId, last.version);
      throw this.failure;
    }
    this.versions.push({ ...version });
  }

  markMilestone(version: number, text: string): void {
    this.checkOpen();
    const staged = this.versions.find((record) => record.version === version);
    if (staged) {
      staged.milestone = true;
      staged.text = text;
    } else {
      this.marks.set(version, text);
    }
  }

  putSnapshot(snapshot: Snapshot): void {
    this.checkOpen();
    this.snapshot = { ...snapshot };
  }

  putReceipt(receipt: PatchReceipt): void {
    this.checkOpen();
    this.checkOwn(receipt.documentId, "putReceipt");
    this.receipts.push({ ...receipt });
  }

  /** Refuses any further staging, e.g. from a promise the work function left running. */
  seal(): void {
    this.sealed = true;
  }

  /** Seals, and throws when staging failed (even if the work swallowed the error): the flush begins with it. */
  finish(): void {
    this.seal();
    if (this.failure) throw this.failure;
  }

  get empty(): boolean {
    return !this.document && !this.snapshot && this.versions.length === 0 && this.marks.size === 0 && this.receipts.length === 0;
  }

  /** The head version the flush announces: undefined when no version was appended (nothing new for a feed). */
  get headVersion(): number | undefined {
    const last = this.versions.at(-1);
    return last && (this.document?.version ?? last.version);
  }

  /** Throws unless the first staged version is the one after `storedHead`. */
  checkFollows(storedHead: number): void {
    const first = this.versions[0];
    if (first && first.version !== storedHead + 1) throw notNext(first.version, this.documentId, storedHead);
  }

  /** Throws unless all `found` of the milestone marks met an existing version. */
  checkMarked(found: number): void {
    if (found === this.marks.size) return;
    const missing = [...this.marks.keys()].join(", ");
    throw new Error(`markMilestone(${missing}) on document ${this.documentId}: ${this.marks.size - found} of these versions do not exist`);
  }

  private checkOpen(): void {
    if (this.sealed) throw new Error(`the write transaction of document ${this.documentId} is over`);
  }

  private checkOwn(documentId: string, method: string): void {
    if (documentId.toLowerCase() !== this.documentId.toLowerCase()) {
      throw new Error(`${method} for document ${documentId} inside the write of document ${this.documentId}`);
    }
  }
}

function notNext(version: number, documentId: string, previous: number): Error {
  return new Error(`appendVersion(${version}) on document ${documentId}: the next version is ${previous + 1}`);
}

/** The transaction an adapter hands to the work: its reads of the document, and these staged writes. */
export function documentTransaction(reads: DocumentReads, staged: StagedWrites): DocumentTransaction {
  return {
    document: () => reads.document(),
    snapshot: () => reads.snapshot(),
    versions: (after, upTo) => reads.versions(after, upTo),
    versionHeads: (after, upTo) => reads.versionHeads(after, upTo),
    version: (version) => reads.version(version),
    milestones: (after, limit) => reads.milestones(after, limit),
    fullTextAtOrBefore: (version) => reads.fullTextAtOrBefore(version),
    receipt: (clientId, seq) => reads.receipt(clientId, seq),
    receipts: (keys) => reads.receipts(keys),
    putDocument: (document) => staged.putDocument(document),
    appendVersion: (version) => staged.appendVersion(version),
    markMilestone: (version, text) => staged.markMilestone(version, text),
    putSnapshot: (snapshot) => staged.putSnapshot(snapshot),
    putReceipt: (receipt) => staged.putReceipt(receipt),
  };
}
