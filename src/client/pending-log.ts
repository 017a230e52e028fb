import { ChangeSet } from "@codemirror/state";
import { joinLines, splitLines } from "../core/lines.js";
import { applyRebased } from "../core/rebuild-rule.js";
import { validateOps } from "../core/validate-ops.js";
import { changesToLines } from "../core/text-changes.js";
import type { EarlierPending } from "./earlier-record.js";
import type { LineCodec } from "./line-codec.js";
import { ownAfterRemote, type OwnText } from "./own-text.js";
import { withWire } from "./service-text.js";
import { acked, conflicted, edited, followed, hasUnconfirmed, replaced, sent, startSync, unsent, type SyncState } from "./sync-text.js";
import type { ContentConflict, ContentPatchRequest, ContentPatchResult, LineOperation } from "./types.js";

/**
 * What a live document keeps of its unconfirmed edits (docs/editing-protocol.md, "Persistence"): a
 * snapshot, written now and then, and the entries appended since, one per step that changed the
 * texts. Replaying the entries over the snapshot with the same functions the live document ran
 * (sync-text.ts) gives back its texts, the patch in flight exactly as sent, and the next seq. So a
 * keystroke costs one small entry, never the document; the snapshot (the document's whole text)
 * is written when the document is idle or the entries have grown.
 *
 * A store keeps strings it need not understand: the JSON of each, sealed under the document's
 * local key for an encrypted document. `clientId` and `nextSeq` stay readable, so that a store can
 * tell whose entry it is, and a record sealed under another key still tells which seqs are used.
 */
export interface StoredPending {
  clientId: string;
  /** The snapshot holds edits the service has not confirmed (entries appended since may add some). */
  unsent: boolean;
  /** The next seq when the snapshot was written; each entry appended since may have used one more. */
  nextSeq: number;
  /** The snapshot (PendingSnapshot as JSON, sealed for an encrypted document). */
  snapshot: string;
  /** The entries appended since, in order (PendingEntry as JSON, sealed likewise). */
  entries: string[];
}

/** The unconfirmed edits of a live document, optionally kept (in localStorage, IndexedDB, a file…). */
export interface PendingStore {
  /** What is kept: a record, or one of the earlier format (earlier-record.ts), taken over once. */
  load(documentId: string): Promise<StoredPending | EarlierPending | undefined> | StoredPending | EarlierPending | undefined;
  /** Replaces what is kept by a snapshot with no entries; `undefined`: nothing is unconfirmed. */
  save(documentId: string, record: StoredPending | undefined): Promise<void> | void;
  /**
   * Adds one entry after the ones kept; the record exists (save came first). `unconfirmed`: whether
   * something is still unconfirmed after this step (the entry of an answer that confirmed all says no).
   */
  append(documentId: string, entry: string, unconfirmed: boolean): Promise<void> | void;
}

interface PendingSnapshot {
  nextSeq: number;
  version: number;
  /** The service's text at `version` (its wire lines joined), and its checksum when known. */
  text: string;
  checksum?: string;
  inflight?: { request: ContentPatchRequest; changes: unknown };
  pending: unknown;
  /** Where the text typed here lately is (own-text.ts), on the local text after `pending`. */
  own: OwnText;
}

type PendingEntry =
  | { edit: unknown }
  | { sent: ContentPatchRequest }
  | { acked: ContentPatchResult }
  | { conflicted: ContentConflict }
  | { unsent: true }
  | { assumed: true }
  | { followed: { ops: LineOperation[]; version: number } }
  | { replaced: { text: string; version: number } }
  /** The choice of a conflict asked about: the pending edits became these. */
  | { resolved: unknown };

export type { PendingEntry };

/** The snapshot of `sync` as a store keeps it. */
export function snapshotRecord(sync: SyncState, clientId: string, nextSeq: number, codec: LineCodec): StoredPending {
  const { confirmed, inflight, pending } = sync;
  const snapshot: PendingSnapshot = {
    nextSeq,
    version: confirmed.version,
    text: joinLines(confirmed.wire),
    ...(confirmed.checksum !== undefined ? { checksum: confirmed.checksum } : {}),
    ...(inflight ? { inflight: { request: inflight.request, changes: inflight.changes.toJSON() } } : {}),
    pending: pending.toJSON(),
    own: sync.own,
  };
  return { clientId, unsent: hasUnconfirmed(sync), nextSeq, snapshot: codec.seal(JSON.stringify(snapshot)), entries: [] };
}

/** One entry as a store keeps it. */
export function entryRecord(entry: PendingEntry, codec: LineCodec): string {
  return codec.seal(JSON.stringify(entry));
}

/** The texts and next seq a record gives back, or undefined when it cannot be opened (another key) or does not fit. */
export function replay(record: StoredPending, codec: LineCodec): { sync: SyncState; nextSeq: number } | undefined {
  try {
    const opened = codec.open(record.snapshot);
    if (opened === undefined) return undefined;
    const snapshot = JSON.parse(opened) as PendingSnapshot;
    let sync = startSync(withWire(codec, snapshot.version, splitLines(snapshot.text), snapshot.checksum));
    let nextSeq = snapshot.nextSeq;
    if (snapshot.inflight) {
      sync = edited(sync, ChangeSet.fromJSON(snapshot.inflight.changes));
      sync = sentAs(sync, snapshot.inflight.request);
    }
    sync = { ...edited(sync, ChangeSet.fromJSON(snapshot.pending)), own: snapshot.own };
    for (const raw of record.entries) {
      const text = codec.open(raw);
      if (text === undefined) return undefined;
      const entry = JSON.parse(text) as PendingEntry;
      if ("sent" in entry) nextSeq = Math.max(nextSeq, entry.sent.seq + 1);
      const next = step(sync, entry, codec);
      if (next === undefined) return undefined;
      sync = next;
    }
    return { sync, nextSeq };
  } catch {
    // Not JSON, a change that does not fit its text: a record this code did not write.
    return undefined;
  }
}

function step(sync: SyncState, entry: PendingEntry, codec: LineCodec): SyncState | undefined {
  if ("edit" in entry) return edited(sync, ChangeSet.fromJSON(entry.edit));
  if ("sent" in entry) return sentAs(sync, entry.sent);
  if ("unsent" in entry) return unsent(sync);
  if ("assumed" in entry) return assumeApplied(sync);
  if ("acked" in entry) return moved(acked(sync, codec, entry.acked));
  if ("conflicted" in entry) return moved(conflicted(sync, codec, entry.conflicted));
  if ("resolved" in entry) {
    const pending = ChangeSet.fromJSON(entry.resolved);
    const local = pending.apply(sync.confirmed.text);
    return { confirmed: sync.confirmed, pending, local, own: ownAfterRemote(sync.own, changesToLines(sync.local, local.toJSON())) };
  }
  if ("followed" in entry) {
    const ops = validateOps(entry.followed.ops);
    return ops.ok ? followed(sync, codec, ops.ops, entry.followed.version)?.state : undefined;
  }
  return replaced(sync, codec, splitLines(entry.replaced.text), entry.replaced.version).state;
}

function moved(result: { state: SyncState } | { unusable: string }): SyncState | undefined {
  return "state" in result ? result.state : undefined;
}

/** The pending edits as the patch `request` (the request that was sent for them). */
export function sentAs(sync: SyncState, request: ContentPatchRequest): SyncState {
  const ops = validateOps(request.ops);
  if (!ops.ok) throw new Error(`a kept patch's ops are invalid: ${ops.message}`);
  return sent(sync, { request, ops: ops.ops, changes: sync.pending });
}

/**
 * The patch in flight taken as applied although its answer could not be read (the text after it is
 * not known): its text becomes the base of the later edits, and a reload then brings the service's.
 */
export function assumeApplied(sync: SyncState): SyncState {
  const { confirmed, inflight } = sync;
  if (!inflight) return sync;
  const wire = applyRebased(confirmed.wire, inflight.ops);
  if (!wire.ok) return sync;
  return { confirmed: { version: confirmed.version, wire: wire.lines, text: inflight.changes.apply(confirmed.text) }, pending: sync.pending, local: sync.local, own: sync.own };
}
