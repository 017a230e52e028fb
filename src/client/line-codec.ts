import type { NormalizedOp } from "../core/normalized-op.js";

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
  /** Whether a shown line or title is the mark of one that did not open (an encrypted document's, sealed under another key). */
  isUnreadable(text: string): boolean;
  /** What a PendingStore keeps of the local edits: sealed under the local key (encrypted documents), or as it is. */
  seal(text: string): string;
  /** A sealed text back; `undefined` when it cannot be opened (sealed under another key). */
  open(sealed: string): string | undefined;
  /** A presence state for the service's list (docs/api.md, "Presence"): sealed under the presence key (encrypted documents), or as it is. */
  sealPresence(text: string): string;
  /** A sealed presence state back; `undefined` when it does not open. */
  openPresence(sealed: string): string | undefined;
}

export const PLAIN_CODEC: LineCodec = {
  encrypted: false,
  decodeLines: (wire) => wire as string[],
  encodeOps: (ops) => ops as NormalizedOp[],
  decodeOps: (ops) => ops as NormalizedOp[],
  decodeTitle: (wire) => wire,
  encodeTitle: (title) => title,
  isUnreadable: () => false,
  seal: (text) => text,
  open: (sealed) => sealed,
  sealPresence: (text) => text,
  openPresence: (sealed) => sealed,
};
