import { ChangeSet, type ChangeSpec, type Text } from "@codemirror/state";
import { joinAdjacent } from "./text-changes.js";

/**
 * Two changes made at once on one text: one of this client's own (`local`: typed, not yet in the
 * service's text) and one that came from the service (`remote`). The merge rule
 * (docs/editing-protocol.md, "The merge rule") is CodeMirror's mapping of one over the other:
 * what either deleted stays deleted, text the other put in inside a deleted range stays at the
 * deletion point, nothing put in is lost or doubled. Where both put text in at one point, the order
 * is chosen here, per insertion, by what the inserted text is:
 *
 * 1. new lines before the line it is at ("X\n", or a lone line break at the start of a line) first,
 * 2. then text that goes on from what is before the point,
 * 3. then new lines after it ("\nX", or a lone line break at the end of a line),
 *
 * and between two of one kind, the local one first when the character before the point is this
 * client's own (the person goes on typing after their own text), else the remote one first (it
 * reached the service earlier). So each person's run of typing stays in one piece, and a line typed
 * on stays on its line.
 */
export interface MappedChanges {
  /** `local` on the text after `remote`. */
  readonly local: ChangeSet;
  /** `remote` on the text after `local`: what an editor showing the local text applies. */
  readonly remote: ChangeSet;
}

/**
 * Where an insertion goes among others at its point: 0 new lines before the line it is at ("X\n"
 * at a line's start), 1 text that goes on from what is before it (inside a line, or typed on and
 * then a line break), 2 new lines after what is before it ("\nX", a line break at a line's end).
 */
export function insertionRank(doc: Text, at: number, inserted: string): 0 | 1 | 2 {
  const leading = inserted.startsWith("\n");
  const trailing = inserted.endsWith("\n");
  const line = doc.lineAt(at);
  if (leading && (at === line.to || !trailing)) return 2;
  if (trailing && at === line.from) return 0;
  return 1;
}

/**
 * Maps two changes on `doc` over each other by the rule above; `ownBefore(at)` tells whether the
 * character before `at` in the text after `local` is this client's own (typed here).
 *
 * CodeMirror orders two insertions at one point by a flag for the whole set, and puts an insertion
 * at the start of a replaced range always before the replacement's text. So each change is taken
 * apart into its insertions (each at the start of what it replaces) and then its deletions, the
 * insertions are mapped over each other in two groups by the rule, and the deletions over the rest.
 */
export function mapConcurrent(doc: Text, local: ChangeSet, remote: ChangeSet, ownBefore: (at: number) => boolean = () => false): MappedChanges {
  if (local.empty || remote.empty) return { local: local.map(remote), remote: remote.map(local, true) };
  const joined = joinAdjacent(local);
  // Lines one side takes out while the other types in them stay lines (keepTypedLines), both ways.
  const { kept, restore } = keepTypedLines(doc, joined, remote);
  const theirs = keepTypedLines(doc, remote, joined);
  const [localIns, localDel] = insertionsThenDeletions(kept, doc.length);
  const [remoteIns, remoteDel] = insertionsThenDeletions(theirs.kept, doc.length);
  // The rule asks about the local text: where each local insertion starts in it.
  const ins = insertionsOver(doc, localIns, remoteIns, (at) => ownBefore(local.mapPos(at, -1)));
  // Each side's deletions over the other's insertions, then over each other's deletions.
  const localDel2 = localDel.map(ins.remote);
  const remoteDel2 = remoteDel.map(ins.local);
  const mappedRemote = ins.remote.map(localDel).compose(remoteDel2.map(localDel2));
  const mappedLocal = ins.local.map(remoteDel).compose(localDel2.map(remoteDel2));
  return {
    // The breaks the remote side's deletion kept go back as local edits; the local side's go back into the local text.
    local: theirs.restore ? theirs.restore.compose(mappedLocal) : mappedLocal,
    remote: restore ? restore.compose(mappedRemote) : mappedRemote,
  };
}

/**
 * Lines `deleting` takes out while `typing` typed in them keep a line break: what was typed there
 * survives (the rule), and stays a line of its own instead of being glued to the line before.
 * Returns `deleting` with those breaks left in, and the change that puts them back into the text
 * after `deleting` (which has them taken out), or `deleting` as it was.
 */
function keepTypedLines(doc: Text, deleting: ChangeSet, typing: ChangeSet): { kept: ChangeSet; restore?: ChangeSet } {
  const typedAt: number[] = [];
  typing.iterChanges((fromA, _toA, _fromB, _toB, inserted) => {
    if (inserted.length > 0 && inserted.sliceString(0, 1) !== "\n") typedAt.push(fromA);
  }, true);
  if (typedAt.length === 0) return { kept: deleting };
  const specs: ChangeSpec[] = [];
  const restores: ChangeSpec[] = [];
  deleting.iterChanges((fromA, toA, fromB, _toB, inserted) => {
    const breaks = new Set<number>();
    for (const at of typedAt) {
      if (toA <= fromA || at < fromA || at > toA) continue;
      const line = doc.lineAt(at);
      // The break before the line where the deletion takes it, else the one after it.
      if (line.from - 1 >= fromA && line.from - 1 < toA) breaks.add(line.from - 1);
      else if (line.to >= fromA && line.to < toA) breaks.add(line.to);
    }
    if (breaks.size === 0) return void specs.push({ from: fromA, to: toA, insert: inserted });
    let start = fromA;
    for (const at of [...breaks].sort((a, b) => a - b)) {
      specs.push({ from: start, to: at, insert: start === fromA ? inserted : "" });
      start = at + 1;
    }
    specs.push({ from: start, to: toA });
    restores.push({ from: fromB + inserted.length, insert: "\n".repeat(breaks.size) });
  });
  return restores.length === 0 ? { kept: deleting } : { kept: ChangeSet.of(specs, doc.length), restore: ChangeSet.of(restores, deleting.newLength) };
}

/** A change as its insertions (each where its range starts) and then its deletions (on the text after them). */
function insertionsThenDeletions(changes: ChangeSet, length: number): [ChangeSet, ChangeSet] {
  const inserts: ChangeSpec[] = [];
  const deletes: ChangeSpec[] = [];
  let shift = 0;
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    if (inserted.length > 0) inserts.push({ from: fromA, insert: inserted });
    shift += inserted.length;
    if (toA > fromA) deletes.push({ from: fromA + shift, to: toA + shift });
  }, true);
  return [ChangeSet.of(inserts, length), ChangeSet.of(deletes, length + shift)];
}

/** Two sets of insertions on `doc` mapped over each other, the local ones of a tie first or last by the rule (`ownBefore` of a position in `doc`). */
function insertionsOver(doc: Text, local: ChangeSet, remote: ChangeSet, ownBefore: (at: number) => boolean): MappedChanges {
  const theirs = new Map<number, string>();
  remote.iterChanges((fromA, _toA, _fromB, _toB, inserted) => void theirs.set(fromA, inserted.toString()), true);
  const first: ChangeSpec[] = [];
  const rest: ChangeSpec[] = [];
  local.iterChanges((fromA, _toA, _fromB, _toB, inserted) => {
    const other = theirs.get(fromA);
    const mine = other === undefined ? 0 : insertionRank(doc, fromA, inserted.toString());
    const theirRank = other === undefined ? 0 : insertionRank(doc, fromA, other);
    const goesFirst = other !== undefined && (mine < theirRank || (mine === theirRank && ownBefore(fromA)));
    (goesFirst ? first : rest).push({ from: fromA, insert: inserted });
  }, true);
  if (first.length === 0) return { local: local.map(remote), remote: remote.map(local, true) };
  // local = A then B (B mapped over A): A's insertions go before the remote ones at their points,
  // B's after. Each pair is mapped with opposite `before` flags, which is what makes both orders
  // of applying them give one text.
  const a = ChangeSet.of(first, doc.length);
  const b = ChangeSet.of(rest, doc.length).map(a);
  const remoteAfterA = remote.map(a);
  return {
    local: a.map(remote, true).compose(b.map(remoteAfterA)),
    remote: remoteAfterA.map(b, true),
  };
}

/**
 * Where a cursor of the local text goes through a remote change (on that text), by the same rule:
 * text put in right at it goes after it where the person's own typing would go first (their own
 * text before it, or new lines after the line), and before it otherwise, so that what they type
 * next lands where the merge would have put it.
 */
export function mapCursor(doc: Text, remote: ChangeSet, pos: number, ownBefore: (at: number) => boolean = () => false): number {
  let inserted: string | undefined;
  remote.iterChanges((fromA, _toA, _fromB, _toB, text) => {
    if (fromA === pos && text.length > 0) inserted = text.toString();
  });
  if (inserted === undefined) return remote.mapPos(pos, -1);
  const rank = insertionRank(doc, pos, inserted);
  const mineFirst = rank === 2 || (rank === 1 && ownBefore(pos));
  return remote.mapPos(pos, mineFirst ? -1 : 1);
}
