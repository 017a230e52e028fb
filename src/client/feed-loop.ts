import { Backoff, earlyEnd, sleep, withTimeout, type RetryNow, type RetryOptions } from "./backoff.js";
import { FolioError } from "./errors.js";
import { followStream, type StreamOpener } from "./feed-stream-loop.js";
import type { FolioClient } from "./http.js";
import type { ChangeFeed, PresenceList } from "./types.js";

export interface FeedLoopOptions {
  client: FolioClient;
  id: string;
  signal: AbortSignal;
  waitSeconds: number;
  retry: RetryOptions | undefined;
  /** The version to ask from, read before every poll. */
  since: () => number;
  /** Hands an answer to the live document; the next poll waits until it was applied (or found stale). */
  deliver: (answer: ChangeFeed) => Promise<void>;
  /** Told when polls start or stop failing. */
  failing: (failing: boolean, error?: Error) => void;
  /** Ends the wait after a failed poll early (not before a Retry-After). */
  now?: RetryNow;
  /**
   * Opens the feed's event stream, tried before the long poll (feed-stream-loop.ts): the loop falls
   * back to the long poll for good when the service has no stream or a proxy holds its first frame back.
   */
  stream?: StreamOpener;
  /** How long the stream's first frame may take before the loop takes the long poll instead (default 5 s). */
  firstFrameMs?: number;
  /** Hears the stream's presence lists (feed-stream-loop.ts). */
  presence?: ((list: PresenceList) => void) | undefined;
  /** Told when an event stream opens (true) and when it ends or breaks (false): presence is then read by polling. */
  streaming?: ((open: boolean) => void) | undefined;
}

/** How much longer than the long-poll wait a feed request may take before it counts as lost. */
const FEED_GRACE_MS = 15_000;

/** How long an event stream's first frame may take: a proxy that buffers holds it back for good. */
export const FIRST_FRAME_MS = 5_000;

/**
 * The feed loop: long polls `GET …/changes?since=<confirmed version>` until the signal fires. A 204
 * asks again at once; an error waits with backoff and jitter (honouring Retry-After) and tries again.
 * The first poll after an error asks with `wait=0`: it is answered at once, so the loop knows it is
 * back (and says so) when the network is, not after a long poll's whole wait with nothing new. Only
 * a long poll that succeeds resets the backoff: where quick requests pass but held ones fail (a proxy
 * that cuts them), the retries still slow down, each quick poll bringing what is new meanwhile.
 */
export async function runFeed(options: FeedLoopOptions): Promise<void> {
  const backoff = new Backoff(options.retry);
  const timeoutMs = options.waitSeconds * 1000 + FEED_GRACE_MS;
  // The last poll failed: the next one asks with wait=0.
  let recovering = false;
  let streaming = options.stream !== undefined;
  while (!options.signal.aborted) {
    const seen = options.now?.fires ?? 0;
    try {
      if (streaming) {
        const opened = () => {
          if (recovering) options.failing(false);
          recovering = false;
          backoff.reset();
          options.streaming?.(true);
        };
        const ended = await followStream({ ...options, open: options.stream!, opened, firstFrameMs: options.firstFrameMs ?? FIRST_FRAME_MS }).finally(() => options.streaming?.(false));
        if (ended === "unavailable") streaming = false;
        // The service ended the stream (shutdown, a read link gone): open it again from the confirmed
        // version after a short pause, which grows while it keeps ending. Out of step: at once.
        else if (ended === "ended") await sleep(backoff.next(), options.signal, earlyEnd(options.now, seen, undefined));
        continue;
      }
      const since = options.since();
      const wait = recovering ? 0 : options.waitSeconds;
      const answer = await withTimeout(options.signal, timeoutMs, (signal) => options.client.changes(options.id, { since, wait }, signal));
      if (recovering) options.failing(false);
      else backoff.reset();
      recovering = false;
      if (answer) await options.deliver(answer);
    } catch (error) {
      if (options.signal.aborted) return;
      recovering = true;
      options.failing(true, error instanceof Error ? error : new Error(String(error)));
      const retryAfter = error instanceof FolioError ? error.retryAfterSeconds : undefined;
      await sleep(backoff.next(retryAfter), options.signal, earlyEnd(options.now, seen, retryAfter)).catch(() => undefined);
    }
  }
}
