import { abortError } from "./backoff.js";
import { FolioNetworkError } from "./errors.js";
import { isPresenceFrame, type FeedStream, type StreamFrame } from "./feed-stream.js";
import type { ChangeFeed, PresenceList } from "./types.js";

/** Opens the event stream of the followed feed from `since` (FolioClient.events or read.events). */
export type StreamOpener = (since: number, signal: AbortSignal) => Promise<FeedStream | undefined>;

export interface StreamLoopOptions {
  signal: AbortSignal;
  open: StreamOpener;
  /** The version the live document has confirmed: where a stream starts, and where it must be after each answer. */
  since: () => number;
  deliver: (answer: ChangeFeed) => Promise<void>;
  /** Hears each `event: presence` frame's list (docs/api.md, "Presence"); without it they are passed over. */
  presence?: ((list: PresenceList) => void) | undefined;
  /** Told once the stream's first frame came: the feed is live. */
  opened: () => void;
  firstFrameMs: number;
  /** How long the stream may stay silent (it sends a comment every 15 s) before it counts as lost (default 45 s). */
  idleMs?: number;
}

const IDLE_MS = 45_000;

/**
 * Follows one event stream (docs/api.md, "The event stream"): each answer is delivered, and the next
 * frame read only once it was applied, as the long poll asks again only then. Resolves
 * "unavailable" when the service has no stream, or when its first frame does not come within
 * `firstFrameMs` (a proxy that buffers): the caller takes the long poll instead. Resolves "ended"
 * when the service ended the stream, and "resume" when the live document's confirmed version is not
 * where the stream is after an answer (an answer it could not take, its own patch confirmed
 * meanwhile): the caller opens it again from the confirmed version, so nothing is missed, as the
 * long poll reads `since` before every request. Rejects as a poll would (a FolioError, a FolioNetworkError).
 */
export async function followStream(options: StreamLoopOptions): Promise<"unavailable" | "ended" | "resume"> {
  if (options.signal.aborted) throw abortError();
  const controller = new AbortController();
  const onAbort = () => controller.abort(abortError());
  options.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const since = options.since();
    const first = await within(controller, options.firstFrameMs, async () => {
      const stream = await options.open(since, controller.signal);
      return stream && { stream, frame: await stream.next() };
    });
    if (first === TIMED_OUT || first === undefined) return "unavailable";
    options.opened();
    const { stream } = first;
    let frame: StreamFrame | undefined = first.frame;
    for (;;) {
      if (frame === undefined) return "ended";
      if (isPresenceFrame(frame)) options.presence?.(frame.presence);
      else if (frame !== "comment") {
        await options.deliver(frame);
        if (options.since() !== frame.currentVersion) return "resume";
      }
      const next = await within(controller, options.idleMs ?? IDLE_MS, () => stream.next());
      if (next === TIMED_OUT) throw new FolioNetworkError("the event stream fell silent");
      frame = next;
    }
  } finally {
    options.signal.removeEventListener("abort", onAbort);
    controller.abort(abortError());
  }
}

const TIMED_OUT = Symbol("timed out");

/** `task`, or TIMED_OUT (and `controller` aborted) when it takes longer than `ms`; an abort meanwhile rejects. */
async function within<T>(controller: AbortController, ms: number, task: () => Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)));
  try {
    const running = task();
    // A task that loses the race is aborted; its rejection then is no news.
    running.catch(() => undefined);
    const result = await Promise.race([running, timeout]);
    if (result === TIMED_OUT) controller.abort(abortError());
    return result;
  } finally {
    clearTimeout(timer);
  }
}
