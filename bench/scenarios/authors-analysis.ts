/** The authors scenario's figures, joined from the load generator's acknowledgements and views. */
import type { AuthorsResult } from "../load/authors.js";
import { Histogram, percentile } from "../lib/stats.js";

/** Every author sends a patch this often. */
export const INTERVAL_MS = 400;
/** The N of the target. */
export const TARGET_N = 1000;

export interface Delays {
  /** Per patch, its slowest other author, from the moment it was sent: the headline. */
  e2eP50: number;
  e2eP95: number;
  /** Over (patch, other author) pairs, from the moment the patch was sent. */
  sendP50: number;
  sendP95: number;
  /** Over pairs, from the sender's 200. */
  pairP50: number;
  pairP95: number;
  /** Per patch, its slowest other author, from the sender's 200. */
  allP50: number;
  allP95: number;
  /** Of the patches alive in the window, the share with a 200. */
  acknowledgedShare: number;
  pairs: number;
  undelivered: number;
  /** 200s that arrived inside the window. */
  acceptedInWindow: number;
}

/** The first index whose version is ≥ `version` in an ascending list (its length when none). */
function firstAtLeast(versions: readonly number[], version: number): number {
  let low = 0;
  let high = versions.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (versions[middle]! >= version) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * For every patch alive in the window (sent by its end, not acknowledged before its start): when
 * every other author's view first included its version. A patch acknowledged by the drain bound
 * counts with its real delays; one without a 200 by then (aborted, failed, 409/422) as never
 * arriving at any other author, so an overloaded service cannot look fast by answering few patches.
 */
export function analyse(result: AuthorsResult, windowStart: number, windowEnd: number): Delays {
  const { views } = result;
  const pairs = new Histogram(60_000);
  const fromSend = new Histogram(60_000);
  const perPatchFromAck: number[] = [];
  const perPatchFromSend: number[] = [];
  let undelivered = 0;
  let acceptedInWindow = 0;
  let counted = 0;
  const { versions, times, senders, sentAt } = result.acks;
  for (let k = 0; k < versions.length; k++) {
    const ackAt = times[k]!;
    if (ackAt >= windowStart && ackAt <= windowEnd) acceptedInWindow++;
    if (ackAt < windowStart || sentAt[k]! > windowEnd) continue;
    counted++;
    const version = versions[k]!;
    let worst = 0;
    let latest = 0;
    for (let author = 0; author < views.length; author++) {
      if (author === senders[k]) continue;
      const view = views[author]!;
      // Views only ever advance: the first entry at or past the version is when it arrived.
      const at = firstAtLeast(view.versions, version);
      const seenAt = at < view.versions.length ? view.times[at]! : Number.POSITIVE_INFINITY;
      const delay = Math.max(0, seenAt - ackAt);
      if (!Number.isFinite(delay)) undelivered++;
      pairs.add(delay);
      fromSend.add(seenAt - sentAt[k]!);
      if (delay > worst) worst = delay;
      if (seenAt > latest) latest = seenAt;
    }
    perPatchFromAck.push(worst);
    perPatchFromSend.push(latest - sentAt[k]!);
  }
  let failed = 0;
  for (const at of result.failedSentAt) {
    if (at > windowEnd) continue;
    failed++;
    for (let other = 1; other < views.length; other++) {
      pairs.add(Number.POSITIVE_INFINITY);
      fromSend.add(Number.POSITIVE_INFINITY);
    }
    perPatchFromAck.push(Number.POSITIVE_INFINITY);
    perPatchFromSend.push(Number.POSITIVE_INFINITY);
  }
  return {
    e2eP50: percentile(perPatchFromSend, 50),
    e2eP95: percentile(perPatchFromSend, 95),
    sendP50: fromSend.percentile(50),
    sendP95: fromSend.percentile(95),
    pairP50: pairs.percentile(50),
    pairP95: pairs.percentile(95),
    allP50: percentile(perPatchFromAck, 50),
    allP95: percentile(perPatchFromAck, 95),
    acknowledgedShare: counted / Math.max(1, counted + failed),
    pairs: pairs.count,
    undelivered,
    acceptedInWindow,
  };
}

/** One run's figures. */
export interface AuthorsRun extends Delays {
  n: number;
  patchP50: number;
  patchP95: number;
  unanswered: number;
  acceptedPerSecond: number;
  skippedTickShare: number;
  statuses: Record<string, number>;
  resyncs: number;
  feedAnswersPerSecond: number;
  serverCores: number;
  /** Service CPU time in the window divided by the 200s / the feed answers that arrived in it, in µs. */
  cpuPerPatchUs: number;
  cpuPerFeedAnswerUs: number;
  /** The load generator's CPU (cores) and event-loop delay p99 in the window, and whether they made it the bound. */
  loadCores: number;
  loadEventLoopP99Ms: number;
  loadBound: boolean;
  /** Run-queue wait of the service's and of the load generator's main threads as a share of the window (other load on their CPUs). */
  serverWaitShare: number;
  loadWaitShare: number;
}
