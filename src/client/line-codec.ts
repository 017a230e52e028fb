import type { NormalizedOp } from "../core/normalized-op.js";
import type { Snapshot } from "./conflicts.js";
import type { PersistedPending } from "./live-types.js";

/**
 * How a live document turns the service's lines (its "wire" text) into the lines it shows and merges,
 * and back. A plain document's codec is the identity; an encrypted document's (encryption/codec.ts,
 * docs/encryption.md) maps every line on its own, so line indices are the same on both sides and the
 * service's line algebra (rebase, checksums, the rebuild rule) runs on the wire lines unchanged.
 */
export interface LineCodec {
  readonly encrypted: boolean;
  /** The shown lines of the service's lines, one for one. */
  decodeLines(wire: readonly string[]): string[];
  /** Ops against the wire text from ops against the shown text: every line put in is encoded afresh. */
  encodeOps(ops: readonly NormalizedOp[]): NormalizedOp[];
  /** The same ops with their lines decoded (indices are shared). */
  decodeOps(ops: readonly NormalizedOp[]): NormalizedOp[];
  decodeTitle(wire: string): string;
  encodeTitle(title: string): string;
  /** The record a PendingStore keeps, its local texts sealed (encrypted documents) or as they are. */
  sealPending(pending: PersistedPending | undefined): PersistedPending | undefined;
  /** The record back; `undefined` when it cannot be opened (sealed under another key). */
  openPending(pending: PersistedPending | undefined): PersistedPending | undefined;
}

export const PLAIN_CODEC: LineCodec = {
  encrypted: false,
  decodeLines: (wire) => wire as string[],
  encodeOps: (ops) => ops as NormalizedOp[],
  decodeOps: (ops) => ops as NormalizedOp[],
  decodeTitle: (wire) => wire,
  encodeTitle: (title) => title,
  sealPending: (pending) => pending,
  openPending: (pending) => pending,
};

/** A snapshot of the service's text at `version`: its shown lines, and its wire lines when they differ. */
export function snapshotOf(codec: LineCodec, version: number, wire: string[], checksum?: string): Snapshot {
  const lines = codec.decodeLines(wire);
  return { version, lines, ...(lines !== wire ? { wire } : {}), ...(checksum !== undefined ? { checksum } : {}) };
}

/** The service's lines of a snapshot (what its checksum and the service's ops are about). */
export function wireOf(snapshot: Snapshot): string[] {
  return snapshot.wire ?? snapshot.lines;
}
