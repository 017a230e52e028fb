import type { Adopted, Inflight } from "./carry-over.js";
import type { PatchOutcome } from "./in-flight.js";
import type { SyncStatus } from "./live-types.js";

/**
 * The states of a live document, in one place (the protocol is docs/editing-protocol.md, "The
 * client"). The live document holds one `LiveState` and changes it only through `transition`; its
 * worker asks `nextStep` what to do next. The texts, versions and queues are data beside it.
 *
 * `phase`: where the one patch is.
 *
 * | phase    | what it means                                                          | leaves it, to                                 |
 * |----------|------------------------------------------------------------------------|-----------------------------------------------|
 * | resend   | opened on an intact persisted patch: it goes out first, unchanged      | sent → sending; closed → closed               |
 * | rebase   | opened on persisted edits without one: merged onto the text first      | rebased → idle; closed → closed               |
 * | idle     | nothing in flight: the local edits (if any) go out as the next patch   | sent → sending; refused (400, 413…) → parked; |
 * |          |                                                                        | closed → closed                               |
 * | parked   | the local edits were refused as they are (400, 413…): nothing goes out | edited → idle; closed → closed                |
 * | sending  | one patch in flight; its request runs beside the worker                | answered → answered; closed → closed          |
 * | answered | the patch's answer (or error), waiting for the worker to take it       | taken → idle; closed → closed                 |
 * | closed   | close() was called: every request and wait is aborted, nothing changes | none                                          |
 *
 * Beside the phase, set and cleared by their own events whatever the phase:
 *
 * | fact          | what it means                                                     | set by               | cleared by             |
 * |---------------|-------------------------------------------------------------------|----------------------|------------------------|
 * | reloadDue     | RESTORED, ROLLED_BACK or a feed diff that does not apply: a GET,  | reload-wanted        | reloading              |
 * |               | once no patch is in flight; later feed answers only bring events  |                      |                        |
 * | deleted       | read-only: no edit, no patch, until a reload finds the document   | deleted, refused 404 | restored               |
 * | unprocessable | 422s in a row: the second and later wait a backoff step to reload | refused 422 (+1)     | taken of an answer (0) |
 * | failing       | the patch's or the feed's requests are failing: status `offline`  | failing (true)       | failing (false)        |
 *
 * An event the tables do not list for a phase leaves the phase as it is (an answer after close()
 * changes nothing). The status (`statusOf`) is `conflict` while a listener is asked to choose, else
 * `offline` while failing, else `synced` when nothing is pending, else `syncing`.
 */
export type Phase =
  | { readonly kind: "resend"; readonly patch: Inflight }
  | { readonly kind: "rebase"; readonly from: string[] }
  | { readonly kind: "idle" }
  | { readonly kind: "parked" }
  | { readonly kind: "sending"; readonly patch: Inflight }
  | { readonly kind: "answered"; readonly patch: Inflight; readonly outcome: PatchOutcome }
  | { readonly kind: "closed" };

export interface LiveState {
  readonly phase: Phase;
  readonly reloadDue: boolean;
  readonly deleted: boolean;
  readonly unprocessable: number;
  readonly failing: { readonly patch: boolean; readonly feed: boolean };
}

export type LiveEvent =
  | { readonly type: "rebased" }
  | { readonly type: "sent"; readonly patch: Inflight }
  | { readonly type: "answered"; readonly patch: Inflight; readonly outcome: PatchOutcome }
  | { readonly type: "taken" }
  /** A 4xx answer other than 409 ContentConflict (`status` 0: an error without one). */
  | { readonly type: "refused"; readonly status: number }
  | { readonly type: "edited" }
  | { readonly type: "reload-wanted" }
  | { readonly type: "reloading" }
  | { readonly type: "deleted" }
  | { readonly type: "restored" }
  | { readonly type: "failing"; readonly loop: "patch" | "feed"; readonly failing: boolean }
  | { readonly type: "closed" };

/** The state of a document just opened, on what it took over from a persisted pending edit. */
export function initialState(adopted?: Adopted): LiveState {
  const phase: Phase = adopted === undefined ? { kind: "idle" } : "resend" in adopted ? { kind: "resend", patch: adopted.resend } : { kind: "rebase", from: adopted.rebaseFrom };
  return { phase, reloadDue: false, deleted: false, unprocessable: 0, failing: { patch: false, feed: false } };
}

/** The one place the state changes: the state after `event` (see the tables above). */
export function transition(state: LiveState, event: LiveEvent): LiveState {
  const { phase } = state;
  if (phase.kind === "closed") return state;
  const to = (next: Phase): LiveState => ({ ...state, phase: next });
  switch (event.type) {
    case "rebased":
      return phase.kind === "rebase" ? to({ kind: "idle" }) : state;
    case "sent":
      return phase.kind === "idle" || phase.kind === "resend" ? to({ kind: "sending", patch: event.patch }) : state;
    case "answered":
      return phase.kind === "sending" && phase.patch === event.patch ? to({ kind: "answered", patch: phase.patch, outcome: event.outcome }) : state;
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
    case "failing":
      return { ...state, failing: { ...state.failing, [event.loop]: event.failing } };
    case "closed":
      return to({ kind: "closed" });
  }
}

/** The patch in flight (also once answered, until the worker takes the answer). */
export function inFlight(state: LiveState): Inflight | undefined {
  const { phase } = state;
  return phase.kind === "sending" || phase.kind === "answered" ? phase.patch : undefined;
}

/** The patch sent and not confirmed, or to be resent: what the PendingStore keeps and close() rejects the milestones of. */
export function unconfirmedPatch(state: LiveState): Inflight | undefined {
  return state.phase.kind === "resend" ? state.phase.patch : inFlight(state);
}

/** Nothing of the state keeps the document from being synced (the texts and queues may still). */
export function quiet(state: LiveState): boolean {
  const kind = state.phase.kind;
  return (kind === "idle" || kind === "parked" || kind === "closed") && !state.reloadDue;
}

export function statusOf(state: LiveState, asking: boolean, synced: () => boolean): SyncStatus {
  if (asking) return "conflict";
  if (state.failing.patch || state.failing.feed) return "offline";
  return synced() ? "synced" : "syncing";
}

/** What the worker sees besides the state, asked only when the step depends on it. */
export interface Work {
  /** A feed answer is queued. */
  feedQueued(): boolean;
  /** The first queued feed answer may be applied while `patch` is in flight (in-flight.ts). */
  appliesInFlight(patch: Inflight): boolean;
  /** The local text differs from the confirmed one, or a milestone waits. */
  hasEdits(): boolean;
  /** How long the next patch waits for the next key; 0: now. */
  holdMs(): number;
}

export type Step =
  | { readonly do: "take"; readonly patch: Inflight; readonly outcome: PatchOutcome }
  | { readonly do: "rebase"; readonly from: string[] }
  | { readonly do: "apply-feed" }
  | { readonly do: "reload" }
  | { readonly do: "resend"; readonly patch: Inflight }
  | { readonly do: "send" }
  | { readonly do: "wait"; readonly ms?: number }
  | { readonly do: "stop" };

/**
 * The worker's next step, in this order: take a patch's answer, merge persisted edits, (with a
 * patch in flight) apply the feed answers that may be applied meanwhile and else wait, reload,
 * apply a feed answer, resend a persisted patch, send the local edits (after the hold), wait.
 */
export function nextStep(state: LiveState, work: Work): Step {
  const { phase } = state;
  switch (phase.kind) {
    case "closed":
      return { do: "stop" };
    case "answered":
      return { do: "take", patch: phase.patch, outcome: phase.outcome };
    case "rebase":
      return { do: "rebase", from: phase.from };
    case "sending":
      // Other people's changes are shown at once; anything else waits for the patch's answer.
      return work.feedQueued() && work.appliesInFlight(phase.patch) ? { do: "apply-feed" } : { do: "wait" };
  }
  if (state.reloadDue) return { do: "reload" };
  if (work.feedQueued()) return { do: "apply-feed" };
  if (phase.kind === "resend") return { do: "resend", patch: phase.patch };
  if (state.deleted || phase.kind === "parked" || !work.hasEdits()) return { do: "wait" };
  const hold = work.holdMs();
  return hold > 0 ? { do: "wait", ms: hold } : { do: "send" };
}
