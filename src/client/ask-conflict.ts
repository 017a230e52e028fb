import { ChangeSet } from "@codemirror/state";
import { applyOps } from "../core/apply-ops.js";
import { diffLines } from "../core/diff-lines.js";
import { minimizeOps } from "../core/minimize-ops.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import { rebaseOps } from "../core/rebase-ops.js";
import { applyRebased } from "../core/rebuild-rule.js";
import { changesToLines } from "../core/text-changes.js";
import { joinLines } from "../core/lines.js";
import { validateOps } from "../core/validate-ops.js";
import type { ConflictDeck } from "./conflicts.js";
import type { LineCodec } from "./line-codec.js";
import { ownAfterRemote } from "./own-text.js";
import type { Moved, SyncState } from "./sync-text.js";
import type { ContentConflict } from "./types.js";

/**
 * The opt-in choice on a 409 (`conflicts: "ask"`, docs/editing-protocol.md, "Asking instead"):
 * "theirs" drops the unconfirmed edits, "mine" puts them over the service's text, winning on the
 * contested lines only. Whole texts are compared here: it runs only when someone is asked.
 */

/** "Keep mine": the local lines over `target`, the foreign hunks that overlap a local one left out, every other foreign change kept. */
export function mergeMineWins(from: readonly string[], local: readonly string[], target: readonly string[], remoteOps: readonly NormalizedOp[]): string[] {
  const mine = minimizeOps(from, diffLines(from, local));
  let theirs = minimizeOps(from, remoteOps);
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

/**
 * The state after the choice, from `before` (the state the 409 answered) and `merged` (its default
 * merge, on the service's new text): its pending edits become `pending`, and the local text follows.
 */
export function resolvedTo(merged: SyncState, pending: ChangeSet, before: SyncState): Moved {
  const local = pending.apply(merged.confirmed.text);
  const remote = changesToLines(before.local, local.toJSON());
  return { state: { confirmed: merged.confirmed, pending, local, own: ownAfterRemote(before.own, remote) }, remote };
}

/** The pending edits of a choice: none for "theirs", the way to "mine" from the service's text for "mine". */
export function chosenEdits(merged: SyncState, choice: "theirs" | "mine", mine: readonly string[]): ChangeSet {
  return choice === "theirs" ? ChangeSet.empty(merged.confirmed.text.length) : changesToLines(merged.confirmed.text, mine);
}

/**
 * Asks the conflict listeners (ConflictDeck) to choose between the service's text (`merged`, the
 * state after the 409 merged by default) and "keep mine" (mergeMineWins of `before`'s local text).
 * Undefined when nobody chose (no listener): the default merge stands.
 */
export async function askChoice(deck: ConflictDeck, codec: LineCodec, before: SyncState, merged: SyncState, conflict: ContentConflict): Promise<{ choice: "theirs" | "mine"; mine: string[] } | undefined> {
  const ops = validateOps(conflict.opsSinceBase);
  const mine = mergeMineWins(before.confirmed.text.toJSON(), before.local.toJSON(), merged.confirmed.text.toJSON(), ops.ok ? codec.decodeOps(ops.ops) : []);
  const choice = await deck.ask(merged.confirmed.text.toString(), () => joinLines(mine), conflict.currentVersion);
  return choice === undefined ? undefined : { choice, mine };
}
