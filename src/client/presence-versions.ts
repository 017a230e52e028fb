import type { ChangeSet } from "@codemirror/state";
import type { SyncState } from "./sync-text.js";

/** How far back the versions of cursors are mapped: a cursor older than this many steps is placed as it is, cut to the text. */
const STEPS_KEPT = 1000;

interface Step {
  from: number;
  to: number;
  /** A position of the service's text at `from` on the text at `to`; undefined: the step cannot be mapped (a reload). */
  map: ((pos: number) => number) | undefined;
}

/**
 * Where a cursor of a version of the service's text is now (docs/api.md, "Presence", the client
 * library): a cursor is sent with the version of the service's text its positions refer to, and
 * the receiver maps it through the changes it took since. This keeps those changes, as maps of
 * positions from one version of the service's text to the next, for the last {@link STEPS_KEPT} steps.
 */
export class VersionSteps {
  private readonly steps: Step[] = [];

  record(from: number, to: number, map: ((pos: number) => number) | undefined): void {
    if (to === from) return;
    this.steps.push({ from, to, map });
    if (this.steps.length > STEPS_KEPT) this.steps.splice(0, this.steps.length - STEPS_KEPT);
  }

  /** A position of version `at` on the service's text of version `now`; undefined when the steps between are not known (or `at` is ahead). */
  map(pos: number, at: number, now: number): number | undefined {
    if (at === now) return pos;
    if (at > now) return undefined;
    let version = at;
    let mapped = pos;
    for (const step of this.steps) {
      if (step.to <= version) continue;
      if (step.from !== version || !step.map) return undefined;
      mapped = step.map(mapped);
      version = step.to;
      if (version === now) return mapped;
    }
    return undefined;
  }
}

/** The local edits not yet confirmed, as changes on the service's (confirmed) text: the patch in flight, then the pending edits. */
export function unconfirmed(sync: SyncState): ChangeSet {
  return sync.inflight ? sync.inflight.changes.compose(sync.pending) : sync.pending;
}

/** A position of the local text on the confirmed text (a position in text typed here and not yet confirmed goes to where that text starts). */
export function localToService(sync: SyncState, pos: number): number {
  return unconfirmed(sync).invertedDesc.mapPos(Math.max(0, Math.min(pos, sync.local.length)), -1);
}

/** A position of the confirmed text on the local text. */
export function serviceToLocal(sync: SyncState, pos: number): number {
  return unconfirmed(sync).mapPos(Math.max(0, Math.min(pos, sync.confirmed.text.length)), 1);
}

/**
 * The step of the service's text between two states of a live document, as a map of positions:
 * through the local text (before: confirmed → local), the change of the local text (`remote`, none
 * when the local text stayed), and back (after: local → confirmed). Undefined when the local text
 * changed without a known change.
 */
export function stepBetween(before: SyncState, after: SyncState, remote: ChangeSet | undefined): ((pos: number) => number) | undefined {
  if (!remote && before.local.length !== after.local.length) return undefined;
  if (remote && remote.length !== before.local.length) return undefined;
  // Only the changes' descriptions are kept (no texts): a step costs little however long the document.
  const into = unconfirmed(before).desc;
  const through = remote?.desc;
  const back = unconfirmed(after).invertedDesc;
  return (pos) => {
    const local = into.mapPos(Math.min(pos, into.length), 1);
    return back.mapPos(through ? through.mapPos(local, 1) : local, 1);
  };
}

/** A live document's positions for its presence (presence.ts, PresenceHost): its confirmed version, and the local text ⇄ that version's text. */
export function syncPositions(sync: () => SyncState) {
  return { version: () => sync().confirmed.version, toService: (pos: number) => localToService(sync(), pos), toLocal: (pos: number) => serviceToLocal(sync(), pos) };
}
