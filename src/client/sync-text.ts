import { ChangeSet, type Text } from "@codemirror/state";
import { checksumOf } from "../core/checksum.js";
import { mapConcurrent } from "../core/concurrent-changes.js";
import { joinLines } from "../core/lines.js";
import { toLineOperation, type NormalizedOp } from "../core/normalized-op.js";
import { droppedAsAlreadyMade, rebuildAfterPatch } from "../core/rebuild-rule.js";
import { changesToLines, lineOpsOfChanges, wholeLinesOut } from "../core/text-changes.js";
import { validateOps } from "../core/validate-ops.js";
import type { LineCodec } from "./line-codec.js";
import { alignHints, NO_OWN_TEXT, ownAfterEdit, ownAfterRemote, ownBefore, type OwnText } from "./own-text.js";
import { moveBy, replaceBy, withWire, type ServiceText } from "./service-text.js";
import type { ContentConflict, ContentPatchRequest, ContentPatchResult } from "./types.js";

/**
 * The texts of a live document and how they move (docs/editing-protocol.md, "The client"), as pure
 * functions: the service's text (`confirmed`), at most one patch in flight (its character changes
 * on the confirmed text, and the request as sent), and the edits typed since (`pending`, character
 * changes on the confirmed text with the patch in flight). `local`, the text the person sees, is
 * pending applied to inflight applied to confirmed. A change from the service moves `confirmed` and
 * is mapped over the unconfirmed edits by the merge rule (core/concurrent-changes.ts); what comes
 * back for the editor is that change as it applies to `local`.
 */
export interface SyncState {
  readonly confirmed: ServiceText;
  readonly inflight?: Inflight;
  readonly pending: ChangeSet;
  readonly local: Text;
  /** Where the text typed here lately is in `local` (own-text.ts). */
  readonly own: OwnText;
}

/** A patch on its way: the request exactly as sent, its ops (normalized), and its changes on the confirmed text. */
export interface Inflight {
  readonly request: ContentPatchRequest;
  readonly ops: readonly NormalizedOp[];
  readonly changes: ChangeSet;
}

/** A change of the state, and what it does to the local text (on the local text before it). */
export interface Moved {
  readonly state: SyncState;
  readonly remote: ChangeSet;
}

/** What a patch's answer could not be taken as: the text is not what the service holds, reload it. */
export type Unusable = { readonly unusable: string };

export function startSync(confirmed: ServiceText, own: OwnText = NO_OWN_TEXT): SyncState {
  return { confirmed, pending: ChangeSet.empty(confirmed.text.length), local: confirmed.text, own };
}

/** A local edit on the local text (whole lines taken out as the break before them: wholeLinesOut). */
export function edited(state: SyncState, changes: ChangeSet): SyncState {
  const pending = state.pending.compose(wholeLinesOut(state.local, changes));
  return { ...state, pending, local: changes.apply(state.local), own: ownAfterEdit(state.own, changes) };
}

/** The text with the patch in flight, the pending edits' base. */
export function withInflight(state: SyncState): Text {
  return state.inflight ? state.inflight.changes.apply(state.confirmed.text) : state.confirmed.text;
}

/** The pending edits as the next patch on the confirmed text (which has `checksum`); its lines put in are encoded. */
export function nextPatch(
  state: SyncState,
  codec: LineCodec,
  fields: { checksum: string; clientId: string; seq: number; displayName: string | undefined; milestone: boolean },
): Inflight {
  const ops = codec.encodeOps(lineOpsOfChanges(state.confirmed.text, state.pending, state.local, ownBefore(state.own, ChangeSet.empty(state.local.length))));
  const request: ContentPatchRequest = {
    baseVersion: state.confirmed.version,
    checksum: fields.checksum,
    clientId: fields.clientId,
    seq: fields.seq,
    ops: ops.map(toLineOperation),
    ...(fields.displayName !== undefined ? { displayName: fields.displayName } : {}),
    ...(fields.milestone ? { milestone: true } : {}),
  };
  return { request, ops, changes: state.pending };
}

export function sent(state: SyncState, inflight: Inflight): SyncState {
  return { ...state, inflight, pending: ChangeSet.empty(state.local.length) };
}

/** The patch in flight was not applied (a 422, a 400…): its edits are pending again, before the later ones. */
export function unsent(state: SyncState): SyncState {
  if (!state.inflight) return state;
  return { confirmed: state.confirmed, pending: state.inflight.changes.compose(state.pending), local: state.local, own: state.own };
}

/**
 * The 200 to the patch in flight. With nothing since its base the new text is the patch applied
 * (the answer's checksum is of exactly that). Otherwise the service shifted it over what came
 * since: the text is rebuilt by the service's rule and checked against the checksum, and the
 * foreign change is mapped over the local edits. Where the rebuilt text is not what the mapping
 * predicted, the service's text is taken: the difference goes to the local text as a remote change,
 * except where the service kept once what both typed alike (a change already made), where the local
 * text keeps both and the second goes out again as a pending edit.
 */
export function acked(state: SyncState, codec: LineCodec, result: ContentPatchResult): Moved | Unusable {
  const { confirmed, inflight, pending, local, own } = state;
  if (!inflight) return { unusable: "an answer came with no patch in flight" };
  const since = validateOps(result.opsSinceBase);
  if (!since.ok) return { unusable: `the answer's opsSinceBase are invalid: ${since.message}` };
  if (since.ops.length === 0) {
    const moved = moveBy(codec, confirmed, inflight.ops, result.version, result.checksum);
    if (!moved) return { unusable: "the patch does not apply to its own base" };
    const next = { ...moved.next, text: inflight.changes.apply(confirmed.text) };
    return { state: { confirmed: next, pending, local, own }, remote: ChangeSet.empty(local.length) };
  }
  const rebuilt = rebuildAfterPatch(confirmed.wire, inflight.ops, since.ops);
  if (!rebuilt.ok) return { unusable: rebuilt.message };
  if (result.checksum !== undefined && checksumOf(joinLines(rebuilt.lines)) !== result.checksum) return { unusable: `the text of version ${result.version} could not be rebuilt exactly` };
  // Where the ops read two ways, who typed what here chooses (own-text.ts).
  const foreign = moveBy(codec, confirmed, since.ops, result.version, undefined, alignHints(own, inflight.changes.compose(pending)));
  if (!foreign) return { unusable: "the answer's opsSinceBase do not fit the base" };
  const service = withWire(codec, result.version, rebuilt.lines, result.checksum);
  // Where both put text in at one point, the service may have ordered it otherwise than the rule
  // would (it decides by lines): the order that gives its text is taken.
  const rule = ownBefore(own, pending);
  const orders = [rule, () => false, () => true].map((order) => mapConcurrent(confirmed.text, inflight.changes, foreign.changes, order));
  const matching = orders.find((mine) => mine.local.apply(foreign.next.text).eq(service.text));
  const mine = matching ?? orders[0]!;
  const expected = mine.local.apply(foreign.next.text);
  const later = mapConcurrent(withInflight(state), pending, mine.remote, ownBefore(own, ChangeSet.empty(local.length)));
  if (matching) {
    const next = { ...service, text: expected };
    return { state: { confirmed: next, pending: later.local, local: later.remote.apply(local), own: ownAfterRemote(own, later.remote) }, remote: later.remote };
  }
  if (droppedAsAlreadyMade(confirmed.wire, inflight.ops, since.ops)) {
    // Kept once what both typed alike: the local text keeps both, and the second goes out again.
    const again = changesToLines(service.text, expected.toJSON());
    return { state: { confirmed: service, pending: again.compose(later.local), local: later.remote.apply(local), own: ownAfterRemote(own, later.remote) }, remote: later.remote };
  }
  // The service placed something otherwise still: its text wins, the edits since go on it, and the
  // lines this patch put text in stay where the service put them (they move, not the edits), each
  // paired with the service's line that keeps most of what this patch put in it; a line the edits
  // since touch is kept over any other, so that they never land on a copy of it.
  const held = new Map<number, [number, number]>();
  const hold = (first: number, last: number) => {
    for (let position = first; position <= last; ) {
      const line = expected.lineAt(position);
      const span = held.get(line.number - 1);
      const from = position - line.from;
      const to = Math.min(last, line.to) - line.from;
      held.set(line.number - 1, span ? [Math.min(span[0], from), Math.max(span[1], to)] : [from, to]);
      position = line.to + 1;
    }
  };
  mine.local.iterChanges((_fromA, _toA, fromB, toB, inserted) => {
    const text = inserted.toString();
    const first = fromB + (text.startsWith("\n") ? 1 : 0);
    const last = toB - (text.endsWith("\n") ? 1 : 0);
    if (last > first) hold(first, last);
  });
  later.local.iterChangedRanges((fromA, toA) => hold(fromA, toA));
  const movedOwn = ownAfterRemote(own, later.remote);
  const correction = mapConcurrent(expected, later.local, changesToLines(expected, service.text.toJSON(), (line) => held.get(line)), ownBefore(movedOwn, ChangeSet.empty(later.remote.newLength)));
  const remote = later.remote.compose(correction.remote);
  return { state: { confirmed: service, pending: correction.local, local: remote.apply(local), own: ownAfterRemote(own, remote) }, remote };
}

/** The 409 to the patch in flight: the service's text moves by `opsSinceBase`, and every unconfirmed edit is pending on it. */
export function conflicted(state: SyncState, codec: LineCodec, conflict: ContentConflict): Moved | Unusable {
  const since = validateOps(conflict.opsSinceBase);
  if (!since.ok) return { unusable: `the conflict's opsSinceBase are invalid: ${since.message}` };
  return followed(unsent(state), codec, since.ops, conflict.currentVersion) ?? { unusable: "the conflict's opsSinceBase do not fit the base" };
}

/** The service's text moved by its ops (a feed answer, a 409); nothing may be in flight. Undefined when they do not apply. */
export function followed(state: SyncState, codec: LineCodec, ops: readonly NormalizedOp[], version: number): Moved | undefined {
  if (state.inflight) return undefined;
  const foreign = moveBy(codec, state.confirmed, ops, version, undefined, alignHints(state.own, state.pending));
  if (!foreign) return undefined;
  return over(state, foreign.next, foreign.changes);
}

/** The service's whole text at `version` (a reload, a feed answer with `content`): the unconfirmed edits go on it. */
export function replaced(state: SyncState, codec: LineCodec, wire: readonly string[], version: number): Moved {
  const moved = replaceBy(codec, state.confirmed, wire, version);
  return over(unsent(state), moved.next, moved.changes);
}

function over(state: SyncState, next: ServiceText, changes: ChangeSet): Moved {
  const mapped = mapConcurrent(state.confirmed.text, state.pending, changes, ownBefore(state.own, ChangeSet.empty(state.local.length)));
  const local = mapped.remote.apply(state.local);
  return { state: { confirmed: next, pending: mapped.local, local, own: ownAfterRemote(state.own, mapped.remote) }, remote: mapped.remote };
}

/** Whether the local text holds edits the service does not have yet (pending or in flight). */
export function hasUnconfirmed(state: SyncState): boolean {
  return state.inflight !== undefined || !state.pending.empty;
}
