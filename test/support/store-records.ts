import type { DocumentRecord, Store, VersionRecord } from "../../src/storage/store.js";

/*
 * Records as a store holds them, for the store suites: a head and a version of a one-line document
 * titled "Plan" whose line `n` is "line n", with a well-formed (not computed) checksum.
 */

/** The time of the records (the stores take any millisecond count). */
export const T0 = Date.parse("2026-03-01T12:00:00.000Z");

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
