import { applyOps } from "../core/apply-ops.js";
import { checksumOf } from "../core/checksum.js";
import { joinLines } from "../core/lines.js";
import { mergeLines } from "../core/merge-text.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import { droppedAsAlreadyMade, rebuildAfterPatch } from "../core/rebuild-rule.js";
import { validateOps } from "../core/validate-ops.js";
import type { Inflight } from "./carry-over.js";
import type { Snapshot } from "./conflicts.js";
import type { PatchAnswer } from "./http.js";
import type { ChangeFeed, ContentConflict, ContentPatchResult } from "./types.js";
import { PLAIN_CODEC, snapshotOf, wireOf, type LineCodec } from "./line-codec.js";

/** How the request of a patch ended: an answer (200 or 409 ContentConflict), or the error it threw. */
export type PatchOutcome = { answer: PatchAnswer } | { error: unknown };

/**
 * True when a feed answer may be applied while `patch` is in flight (docs/editing-protocol.md,
 * "The client"): a diff from the feed base whose every version is listed and is a content change
 * of someone else (UPDATED, not by this client after its confirmed version). The text it brings
 * then lacks the patch in flight, whose answer is still to be rebuilt and checked on its own. An
 * answer holding the patch's own version, a rename, deletion, restore or rollback, a full text, and
 * any answer during a patch resent after a reopen (whose edits rest on an older text) wait for the
 * patch's answer.
 */
export function appliesInFlight(answer: ChangeFeed, patch: Inflight, clientId: string, versions: { confirmed: number; feedBase: number }): boolean {
  const from = answer.fromVersion;
  if (patch.localBase || answer.ops === undefined || from === undefined || from !== versions.feedBase) return false;
  return (
    answer.events.length === answer.currentVersion - from &&
    answer.events.every((event, k) => event.version === from + 1 + k && event.changeType === "UPDATED" && !(event.clientId === clientId && event.version > versions.confirmed))
  );
}

/** The service's text a 409 names (apply(base, opsSinceBase)) and those ops (decoded); throws when they do not fit the base. */
export function theirsOf(patch: Inflight, conflict: ContentConflict, codec: LineCodec = PLAIN_CODEC): { target: Snapshot; ops: NormalizedOp[] } {
  const since = validateOps(conflict.opsSinceBase);
  const theirs = since.ok ? applyOps(wireOf(patch.base), since.ops) : since;
  if (!since.ok || !theirs.ok) throw new Error(`a 409's opsSinceBase do not fit the base: ${theirs.ok ? "" : theirs.message}`);
  return { target: snapshotOf(codec, conflict.currentVersion, theirs.lines), ops: codec.decodeOps(since.ops) };
}

/**
 * The service's lines after a 200 to `patch` and the ops since its base: rebuilt by the rule on the
 * service's lines (the rule is the service's own, and the checksum is of its text), checked against
 * the answer's checksum. `undefined` when they cannot be rebuilt exactly.
 */
export function rebuiltAfter(patch: Inflight, result: ContentPatchResult): { lines: string[]; since: NormalizedOp[] } | undefined {
  const since = validateOps(result.opsSinceBase);
  if (!since.ok) return undefined;
  const rebuilt = rebuildAfterPatch(wireOf(patch.base), patch.ops, since.ops);
  // Verified once here; the next patch on this text sends the same checksum without hashing again.
  if (!rebuilt.ok || (result.checksum !== undefined && checksumOf(joinLines(rebuilt.lines)) !== result.checksum)) return undefined;
  return { lines: rebuilt.lines, since: since.ops };
}

/**
 * When the service kept once a change another person had made the same way since the base (both
 * typed a blank at the end of one line at once): the merge of both sides from the base, which keeps
 * both, as on a 409 (docs/editing-protocol.md, "200"). Else `undefined`.
 */
export function mergeOfKeptOnce(patch: Inflight, since: readonly NormalizedOp[]): string[] | undefined {
  if (!droppedAsAlreadyMade(patch.base.lines, patch.ops, since)) return undefined;
  const theirs = applyOps(patch.base.lines, since);
  const mine = applyOps(patch.base.lines, patch.ops);
  return theirs.ok && mine.ok ? mergeLines(patch.base.lines, theirs.lines, mine.lines) : undefined;
}
