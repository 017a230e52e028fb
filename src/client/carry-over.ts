import { applyOps } from "../core/apply-ops.js";
import { diffLines } from "../core/diff-lines.js";
import { joinLines, splitLines } from "../core/lines.js";
import { minimizeOps } from "../core/minimize-ops.js";
import { rebaseOps } from "../core/rebase-ops.js";
import { applyRebased, rebasePatch } from "../core/rebuild-rule.js";
import { validateOps } from "../core/validate-ops.js";
import type { Snapshot } from "./conflicts.js";
import type { PersistedPending } from "./live-types.js";
import { checksumOf } from "../core/checksum.js";
import { toLineOperation, type NormalizedOp } from "../core/normalized-op.js";
import type { ContentPatchRequest } from "./types.js";
import { PLAIN_CODEC, snapshotOf, wireOf, type LineCodec } from "./line-codec.js";

/** A patch on its way: the request as sent, its base and the text it was made from. */
export interface Inflight {
  request: ContentPatchRequest;
  base: Snapshot;
  /** The request's ops, against the base's wire lines (encrypted for an encrypted document). */
  ops: NormalizedOp[];
  /**
   * The text the local edits made after this patch are relative to: apply(base, ops), the local
   * text when the patch was made, carried over every feed answer applied while it is in flight.
   */
  expected: string[];
  /**
   * Only for a patch resent after a reopen: the text the local edits (this patch's included) are
   * relative to, older than the confirmed text. Such a patch applies no feed answer in flight.
   * Without it, the local edits are relative to the confirmed text.
   */
  localBase?: string[];
  milestones: Array<{ resolve: () => void; reject: (error: Error) => void }>;
}

/**
 * The next patch: the local text as a minimal diff against the confirmed text `base`, its lines put
 * in encoded by `codec` (only they are encrypted: an unchanged line keeps its ciphertext).
 */
export function newPatch(
  base: Snapshot,
  local: string[],
  fields: { clientId: string; seq: number; displayName: string | undefined; milestones: Inflight["milestones"] },
  codec: LineCodec = PLAIN_CODEC,
): Inflight {
  const ops = codec.encodeOps(diffLines(base.lines, local));
  const { clientId, seq, displayName, milestones } = fields;
  const request: ContentPatchRequest = {
    baseVersion: base.version,
    // Hashed once per text: the next patch on the same confirmed text sends it again.
    checksum: (base.checksum ??= checksumOf(joinLines(wireOf(base)))),
    clientId,
    seq,
    ops: ops.map(toLineOperation),
    ...(displayName !== undefined ? { displayName } : {}),
    ...(milestones.length > 0 ? { milestone: true } : {}),
  };
  return { request, base, ops, expected: local, milestones };
}

/**
 * The local edits (`local` relative to `from`) carried over onto `target` with the core algebra, the
 * same rebase the service gives a stale patch; `remoteOps` are the ops from `from` to `target` when
 * the service sent them (else they are diffed). `undefined` when they truly overlap: a conflict.
 * Used with `conflicts: "ask"`; by default the live document merges (mergeLines), which keeps a
 * change both sides made twice where this rebase counts it once (a blank both typed at one point).
 */
export function carryOver(from: readonly string[], local: readonly string[], target: readonly string[], remoteOps?: readonly NormalizedOp[]): string[] | undefined {
  const ownOps = diffLines(from, local);
  if (ownOps.length === 0) return [...target];
  const rebased = rebasePatch(remoteOps ?? diffLines(from, target), ownOps, from);
  if (!rebased.ok) return undefined;
  const applied = applyRebased(target, rebased.ops);
  return applied.ok ? applied.lines : undefined;
}

/**
 * "Keep mine" of a conflict: the local edits (relative to `from`) over `target`, the local side
 * winning where both changed the same lines. The foreign hunks that overlap a local one are left
 * out, every other foreign change stays: choosing mine overrides the contested lines only, never an
 * unrelated change someone else made. Both sides are minimized first, so that a hunk counts only the
 * lines it really changed.
 */
export function mergeMineWins(from: readonly string[], local: readonly string[], target: readonly string[], remoteOps?: readonly NormalizedOp[]): string[] {
  const mine = minimizeOps(from, diffLines(from, local));
  let theirs = minimizeOps(from, remoteOps ?? diffLines(from, target));
  let rebased = rebaseOps(theirs, mine);
  if (!rebased.ok) {
    const contested = new Set(rebased.overlaps.map((overlap) => overlap.foreign));
    theirs = theirs.filter((op) => !contested.has(op));
    rebased = rebaseOps(theirs, mine);
  }
  const kept = applyOps(from, theirs);
  const merged = rebased.ok && kept.ok ? applyRebased(kept.lines, rebased.ops) : undefined;
  // Not reachable with valid inputs (no overlap is left); the local text is the safe answer.
  return merged?.ok ? merged.lines : [...local];
}

/** What a reopened document takes over from a persisted pending edit. */
export type Adopted = { resend: Inflight } | { rebaseFrom: string[] };

/** The patch in flight is resent as it was (same clientId and seq) when it is intact; else the edits are rebased. */
export function adoptPersisted(persisted: PersistedPending, clientId: string, codec: LineCodec = PLAIN_CODEC): Adopted {
  // baseText is the service's text (wire lines); the other texts are the shown ones.
  const base = snapshotOf(codec, persisted.baseVersion, splitLines(persisted.baseText));
  const request = persisted.request;
  const ops = request && persisted.clientId === clientId ? validateOps(request.ops) : undefined;
  const expected = ops?.ok ? applyOps(wireOf(base), ops.ops) : undefined;
  if (request && ops?.ok && expected?.ok) {
    const carried = persisted.localBaseText !== undefined && persisted.expectedText !== undefined;
    return {
      resend: {
        request,
        base,
        ops: ops.ops,
        expected: carried ? splitLines(persisted.expectedText!) : codec.decodeLines(expected.lines),
        localBase: carried ? splitLines(persisted.localBaseText!) : base.lines,
        milestones: [],
      },
    };
  }
  return { rebaseFrom: base.lines };
}

/** The record a PendingStore keeps; `undefined` when everything local is confirmed. */
export function toPersisted(state: { patch: Inflight | undefined; confirmed: Snapshot; localText: string; clientId: string; nextSeq: number }): PersistedPending | undefined {
  const { patch, confirmed, localText } = state;
  const base = patch?.base ?? confirmed;
  if (patch === undefined && localText === joinLines(confirmed.lines)) return undefined;
  // The feed moved the text the local edits are relative to while the patch was in flight.
  const localBase = patch ? (patch.localBase ?? confirmed.lines) : base.lines;
  return {
    ...(patch ? { request: patch.request } : {}),
    baseText: joinLines(wireOf(base)),
    baseVersion: base.version,
    text: localText,
    clientId: state.clientId,
    nextSeq: state.nextSeq,
    ...(patch && localBase !== base.lines ? { localBaseText: joinLines(localBase), expectedText: joinLines(patch.expected) } : {}),
  };
}
