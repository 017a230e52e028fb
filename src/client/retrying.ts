import { Backoff, earlyEnd, sleep, withTimeout, type RetryNow, type RetryOptions } from "./backoff.js";
import { FolioError, isTransient } from "./errors.js";

export interface RetryContext {
  signal: AbortSignal;
  timeoutMs: number;
  retry: RetryOptions | undefined;
  /** Told true after each failed attempt and false once an attempt got an answer. */
  failing: (failing: boolean) => void;
  /** Ends a wait between attempts early (not before a Retry-After). */
  now?: RetryNow;
}

/** True for failures after which the same request is sent again: no answer, a lost answer, 5xx, 429. */
export function isRetryable(error: unknown): boolean {
  return isTransient(error) || (error instanceof Error && error.name === "TimeoutError");
}

/**
 * Runs `call` until it is answered: a network failure, a lost or late answer, a 5xx, 429 or 503 waits
 * (bounded exponential backoff with jitter, at least `Retry-After`) and sends the very same request
 * again. Any other answer (a 2xx, or a 4xx thrown as FolioError) ends it. Only close() stops it
 * earlier: every wait and request is bound to `signal`.
 */
export async function untilAnswered<T>(context: RetryContext, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const backoff = new Backoff(context.retry);
  for (;;) {
    const seen = context.now?.fires ?? 0;
    try {
      const answer = await withTimeout(context.signal, context.timeoutMs, call);
      context.failing(false);
      return answer;
    } catch (error) {
      if (context.signal.aborted || !isRetryable(error)) {
        if (!context.signal.aborted) context.failing(false);
        throw error;
      }
      context.failing(true);
      const retryAfter = error instanceof FolioError ? error.retryAfterSeconds : undefined;
      await sleep(backoff.next(retryAfter), context.signal, earlyEnd(context.now, seen, retryAfter));
    }
  }
}
