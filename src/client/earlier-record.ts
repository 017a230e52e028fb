import { splitLines } from "../core/lines.js";
import { changesToLines } from "../core/text-changes.js";
import type { LineCodec } from "./line-codec.js";
import { serviceTextOf } from "./service-text.js";
import { edited, startSync, type SyncState } from "./sync-text.js";

/**
 * A PendingStore record in the format before edits travelled as edits (the whole local text over a
 * base version). A store may still hold one from before an upgrade: what it holds was typed and not
 * confirmed, so it is taken over, not dropped.
 */
export interface EarlierPending {
  clientId: string;
  nextSeq: number;
  baseVersion: number;
  /** The service's text at `baseVersion` (its wire lines joined). */
  baseText: string;
  /** The local text (sealed under the local key for an encrypted document). */
  text: string;
}

export function isEarlierRecord(record: object): record is EarlierPending {
  const value = record as Partial<EarlierPending>;
  return typeof value.baseText === "string" && typeof value.text === "string" && Number.isSafeInteger(value.baseVersion) && Number.isSafeInteger(value.nextSeq);
}

/**
 * The state an earlier record stands for: its local text as edits pending on its base version, sent
 * with the next seq after the ones it used. Its patch in flight (if any) is not resent as it was: the
 * edits go out as a fresh patch on the same base, which the service rebases, and a hunk it already
 * holds (the earlier patch applied, its answer lost) is dropped there as a change already made.
 * Undefined when the text does not open (sealed under another key).
 */
export function fromEarlierRecord(record: EarlierPending, codec: LineCodec): { sync: SyncState; nextSeq: number } | undefined {
  const text = codec.open(record.text);
  if (text === undefined) return undefined;
  const base = startSync(serviceTextOf(codec, record.baseVersion, record.baseText));
  return { sync: edited(base, changesToLines(base.local, splitLines(text))), nextSeq: record.nextSeq };
}
