import type { PatchAnswer } from "./http.js";
import type { SyncStatus } from "./live-types.js";
import { hasUnconfirmed, type SyncState } from "./sync-text.js";

/**
 * The state of a live document, in one value (the protocol is docs/editing-protocol.md, "The
 * client"): the texts and the patch in flight (`sync`, sync-text.ts), where that patch is
 * (`phase`), and the facts beside it. The live document holds one `LiveState` and changes it only
 * through `transition` (and `withSync` for the texts); its worker asks `nextStep` what to do next.
 *
 * | phase    | what it means                                                            | leaves it, to                            |
 * |----------|--------------------------------------------------------------------------|------------------------------------------|
 * | resend   | opened on a patch kept in flight: it goes out first, unchanged (same seq) | sent → sending; closed → closed          |
 * | idle     | nothing in flight: the pending edits (if any) go out as patch `nextSeq`   | sent → sending (seq + 1); refused (400,  |
 * |          |                                                                          | 413…) → parked; closed → closed          |
 * | parked   | the edits were refused as they are (400, 413…): nothing goes out          | edited → idle; closed → closed           |
 * | sending  | the patch in flight (`sync.inflight`); its request runs beside the worker | answered → answered; closed → closed     |
 * | answered | its answer (or error), waiting for the worker to take it                  | taken → idle; closed → closed            |
 * | closed   | close() was called: every request and wait is aborted, nothing changes   | none                                     |
 *
 * Beside the phase, set and cleared by their own events whatever the phase:
 *
 * | fact          | what it means                                                          | set by               | cleared by  |
 * |---------------|------------------------------------------------------------------------|----------------------|-------------|
 * | reloadDue     | the service's text must be read again (a 422, an answer that does not  | reload-wanted        | reloading   |
 * |               | fit): a GET once nothing is in flight                                  |                      |             |
 * | deleted       | read-only: no edit, no patch, until the document is back               | deleted, refused 404 | restored    |
 * | keyLost       | an encrypted document's key changed: its title no longer opens with    | key-lost             | none        |
 * |               | this link's key; nothing is sealed or sent any more                    |                      |             |
 * | unprocessable | 422s in a row: the second and later wait a backoff step to reload      | refused 422 (+1)     | taken (0)   |
 * | failing       | the patch's or the feed's requests are failing: status `offline`      | failing (true)       | failing     |
 *
 * While a patch is in flight, feed answers wait for its answer: the 200 brings what others wrote
 * before it (`opsSinceBase`), and the feed asks on from the new version.
 */
export type Phase =
  | { readonly kind: "resend" }
  | { readonly kind: "idle" }
  | { readonly kind: "parked" }
  | { readonly kind: "sending" }
  | { readonly kind: "answered"; readonly outcome: PatchSettlement }
  | { readonly kind: "closed" };

/** How a patch's request ended: an answer (200 or 409 ContentConflict), or the error it threw. */
export type PatchSettlement = { readonly answer: PatchAnswer } | { readonly error: unknown };

export interface LiveState {
  readonly phase: Phase;
  readonly sync: SyncState;
  /** The seq of the next patch. */
  readonly nextSeq: number;
  /** The last version whose feed event was taken (renames, deletions). */
  readonly eventsSeen: number;
  /** The newest version a feed answer announced. */
  readonly announced: number;
  readonly reloadDue: boolean;
  readonly deleted: boolean;
  readonly keyLost: boolean;
  readonly unprocessable: number;
  readonly failing: { readonly patch: boolean; readonly feed: boolean };
}

export type LiveEvent =
  /** The pending edits went out as patch `nextSeq`. */
  | { readonly type: "sent" }
  | { readonly type: "seen"; readonly version: number }
  | { readonly type: "announced"; readonly version: number }
  | { readonly type: "answered"; readonly outcome: PatchSettlement }
  | { readonly type: "taken" }
  /** A 4xx answer other than 409 ContentConflict (`status` 0: an error without one). */
  | { readonly type: "refused"; readonly status: number }
  | { readonly type: "edited" }
  | { readonly type: "reload-wanted" }
  | { readonly type: "reloading" }
  | { readonly type: "deleted" }
  | { readonly type: "restored" }
  | { readonly type: "key-lost" }
  | { readonly type: "failing"; readonly loop: "patch" | "feed"; readonly failing: boolean }
  | { readonly type: "closed" };

/** The state of a document just opened; with a patch kept in flight it is resent first. */
export function initialState(sync: SyncState, nextSeq: number): LiveState {
  return {
    phase: sync.inflight ? { kind: "resend" } : { kind: "idle" },
    sync,
    nextSeq,
    eventsSeen: sync.confirmed.version,
    announced: sync.confirmed.version,
    reloadDue: false,
    deleted: false,
    keyLost: false,
    unprocessable: 0,
    failing: { patch: false, feed: false },
  };
}

/** The one place the phase and the facts change: the state after `event` (see the tables above). */
export function transition(state: LiveState, event: LiveEvent): LiveState {
  const { phase } = state;
  if (phase.kind === "closed") return state;
  const to = (next: Phase): LiveState => ({ ...state, phase: next });
  switch (event.type) {
    case "sent":
      if (phase.kind !== "idle" && phase.kind !== "resend") return state;
      return { ...to({ kind: "sending" }), nextSeq: phase.kind === "idle" ? state.nextSeq + 1 : state.nextSeq };
    case "seen":
      return { ...state, eventsSeen: Math.max(state.eventsSeen, event.version) };
    case "announced":
      return { ...state, announced: Math.max(state.announced, event.version) };
    case "answered":
      return phase.kind === "sending" ? to({ kind: "answered", outcome: event.outcome }) : state;
    case "taken":
      if (phase.kind !== "answered") return state;
      return { ...to({ kind: "idle" }), unprocessable: "answer" in phase.outcome ? 0 : state.unprocessable };
    case "refused":
      if (event.status === 422) return { ...state, unprocessable: state.unprocessable + 1 };
      if (event.status === 404) return { ...state, deleted: true };
      if (event.status === 409) return state;
      return phase.kind === "idle" ? to({ kind: "parked" }) : state;
    case "edited":
      return phase.kind === "parked" ? to({ kind: "idle" }) : state;
    case "reload-wanted":
      return { ...state, reloadDue: true };
    case "reloading":
      return { ...state, reloadDue: false };
    case "deleted":
      return { ...state, deleted: true };
    case "restored":
      return { ...state, deleted: false };
    case "key-lost":
      return { ...state, keyLost: true };
    case "failing":
      return { ...state, failing: { ...state.failing, [event.loop]: event.failing } };
    case "closed":
      return to({ kind: "closed" });
  }
}

/** The state with its texts moved (sync-text.ts). */
export function withSync(state: LiveState, sync: SyncState): LiveState {
  return state.phase.kind === "closed" ? state : { ...state, sync };
}

/** Nothing of the state keeps the document from being synced (a waiting milestone or feed answer still may). */
export function quiet(state: LiveState): boolean {
  const kind = state.phase.kind;
  return (kind === "idle" || kind === "parked" || kind === "closed") && !state.reloadDue && (state.deleted || state.keyLost || !hasUnconfirmed(state.sync));
}

export function statusOf(state: LiveState, asking: boolean, synced: boolean): SyncStatus {
  if (asking) return "conflict";
  if (state.failing.patch || state.failing.feed) return "offline";
  return synced ? "synced" : "syncing";
}

/** What the worker sees besides the state. */
export interface Work {
  /** A feed answer is queued. */
  feedQueued(): boolean;
  /** A milestone waits to be sent. */
  milestoneWaiting(): boolean;
}

export type Step =
  | { readonly do: "take"; readonly outcome: PatchSettlement }
  | { readonly do: "apply-feed" }
  | { readonly do: "reload" }
  | { readonly do: "resend" }
  | { readonly do: "send" }
  | { readonly do: "wait" }
  | { readonly do: "stop" };

/**
 * The worker's next step, in this order: take a patch's answer, (with a patch in flight) wait,
 * reload, apply a feed answer, resend a kept patch, send the pending edits, wait.
 */
export function nextStep(state: LiveState, work: Work): Step {
  const { phase } = state;
  switch (phase.kind) {
    case "closed":
      return { do: "stop" };
    case "answered":
      return { do: "take", outcome: phase.outcome };
    case "sending":
      return { do: "wait" };
  }
  if (state.keyLost) return { do: "wait" };
  if (state.reloadDue) return { do: "reload" };
  if (work.feedQueued()) return { do: "apply-feed" };
  if (phase.kind === "resend") return { do: "resend" };
  const edits = !state.sync.pending.empty || work.milestoneWaiting();
  if (state.deleted || phase.kind === "parked" || !edits) return { do: "wait" };
  return { do: "send" };
}
