import type { CommitListener, CommitNotice } from "../../src/storage/store.js";

/** A commit listener that keeps every notice and counts the resets it is told of. */
export class RecordingListener implements CommitListener {
  readonly commits: CommitNotice[] = [];
  resets = 0;
  commit(notice: CommitNotice): void {
    this.commits.push(notice);
  }
  reset(): void {
    this.resets += 1;
  }
  /** Whether the notice of `documentId` at `version` came. */
  saw(documentId: string, version: number): boolean {
    return this.commits.some((notice) => notice.documentId === documentId && notice.version === version);
  }
}
