import { applyOps } from "../core/apply-ops.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import { validateOps } from "../core/validate-ops.js";
import type { Inflight } from "./carry-over.js";
import type { Snapshot } from "./conflicts.js";
import type { PatchAnswer } from "./http.js";
import type { ChangeFeed, ContentConflict } from "./types.js";
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
