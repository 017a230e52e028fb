import type { DocumentRecord, DocumentTransaction, Store, VersionRecord } from "../../src/storage/store.js";

/*
 * Records as a store holds them, for the store suites: a head and a version of a one-line document
 * titled "Plan" whose line `n` is "line n", with a well-formed (not computed) checksum.
 */

/** The time of the records (the stores take any millisecond count). */
export const T0 = Date.parse("2026-03-01T12:00:00.000Z");

/** The document the storage contract suites write, and a second one that must stay apart from it. */
export const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";
export const OTHER = "8c1d2e3f-4a5b-4c6d-8e7f-901234567890";

/** The head of `id` at `version`, with `extra` on top. */
export function head(id: string, version: number, extra: Partial<DocumentRecord> = {}): DocumentRecord {
  return { id, title: "Plan", version, deleted: false, createdAt: T0, updatedAt: T0 + version, checksum: `sha256:${String(version).padStart(64, "0")}`, ...extra };
}

/** Version `n` of `id` (1 is the CREATED milestone with its text), with `extra` on top. */
export function version(id: string, n: number, extra: Partial<VersionRecord> = {}): VersionRecord {
  return {
    documentId: id,
    version: n,
    changeType: n === 1 ? "CREATED" : "UPDATED",
    milestone: n === 1,
    createdAt: T0 + n,
    title: "Plan",
    ops: [{ index: 0, count: 1, lines: [`line ${n}`] }],
    checksum: `sha256:${String(n).padStart(64, "0")}`,
    text: n === 1 ? "line 1" : null,
    ...extra,
  };
}

/** Writes version 1 of `id` (its head and its CREATED version) in one write. */
export async function writeVersionOne(store: Store, id: string): Promise<void> {
  await store.write(id, async (tx) => {
    tx.putDocument(head(id, 1));
    tx.appendVersion(version(id, 1));
  });
}

/** Appends versions from..to of `id` in one write, the head following. */
export async function appendVersions(store: Store, id: string, from: number, to: number, extra: (n: number) => Partial<VersionRecord> = () => ({})) {
  await store.write(id, async (tx) => {
    for (let n = from; n <= to; n++) {
      tx.putDocument(head(id, n));
      tx.appendVersion(version(id, n, extra(n)));
    }
  });
}

/** Appends the next version after whatever head the write finds. */
export function appendNext(store: Store, id: string, extra: (n: number) => Partial<VersionRecord> = () => ({})): Promise<number> {
  return store.write(id, async (tx) => {
    const next = ((await tx.document())?.version ?? 0) + 1;
    tx.putDocument(head(id, next));
    tx.appendVersion(version(id, next, extra(next)));
    return next;
  });
}

/** A work function that only stages writes. */
export function stageOnly(stage: (tx: DocumentTransaction) => void): (tx: DocumentTransaction) => Promise<void> {
  return (tx) => {
    stage(tx);
    return Promise.resolve();
  };
}
