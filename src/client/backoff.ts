/** How the client waits between attempts: bounded exponential backoff with jitter. */
export interface RetryOptions {
  /** The first wait (default 250 ms); doubled on each failure up to maxMs. */
  initialMs?: number;
  /** The longest wait between two attempts (default 30 s). */
  maxMs?: number;
  /** The longest `Retry-After` honoured (default 300 s): a longer one is cut to this. */
  maxRetryAfterMs?: number;
}

export class Backoff {
  private failures = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly maxRetryAfterMs: number;

  constructor(options: RetryOptions = {}, private readonly random: () => number = Math.random) {
    this.initialMs = options.initialMs ?? 250;
    this.maxMs = options.maxMs ?? 30_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 300_000;
  }

  /**
   * The wait before the next attempt: "equal jitter" (half the exponential step plus a random half),
   * so that clients that failed together do not come back together; at least `Retry-After`.
   */
  next(retryAfterSeconds?: number): number {
    const step = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    const jittered = step / 2 + this.random() * (step / 2);
    if (retryAfterSeconds === undefined) return jittered;
    return Math.min(this.maxRetryAfterMs, Math.max(jittered, retryAfterSeconds * 1000));
  }

  reset(): void {
    this.failures = 0;
  }

  get attempts(): number {
    return this.failures;
  }
}

/** How long a fire() that found no wait still ends the next one (a request under way when it came may fail just after). */
const RETRY_NOW_REMEMBERED_MS = 10_000;

/**
 * Ends the waits between retries at once, for a caller who knows the next attempt may now work
 * (the browser is back online): each wait bound to it ends when it fires, but not before the
 * Retry-After it was given (the service asked for that much). A fire that found no wait ends the
 * first wait bound within RETRY_NOW_REMEMBERED_MS after it.
 */
export class RetryNow {
  private readonly waiting = new Set<() => void>();
  private firedAt = -Infinity;

  constructor(private readonly clock: () => number = () => globalThis.performance?.now() ?? Date.now()) {}

  fire(): void {
    if (this.waiting.size === 0) this.firedAt = this.clock();
    for (const resolve of [...this.waiting]) resolve();
  }

  /** Calls `resolve` on the next fire() (at once, soon after a fire that found no wait); the returned function unbinds it. */
  bind(resolve: () => void): () => void {
    this.waiting.add(resolve);
    if (this.clock() - this.firedAt < RETRY_NOW_REMEMBERED_MS) {
      this.firedAt = -Infinity;
      queueMicrotask(resolve);
    }
    return () => this.waiting.delete(resolve);
  }
}

/** What may end a wait early: `now` firing, though never before `atLeastMs` (a Retry-After's wait). */
export interface EarlyEnd {
  now: RetryNow | undefined;
  atLeastMs: number;
}

/** The wait after a failure that said `retryAfterSeconds` (if any), bound to `now`. */
export function earlyEnd(now: RetryNow | undefined, retryAfterSeconds: number | undefined): EarlyEnd {
  return { now, atLeastMs: (retryAfterSeconds ?? 0) * 1000 };
}

/**
 * Resolves after at least `ms` (a timer may fire a little early against the clock, as Node's does
 * when its loop time is stale, so the rest is waited out: a Retry-After is honoured in full), or
 * earlier when `early.now` fires (not before `early.atLeastMs`), or rejects with an AbortError as
 * soon as `signal` fires.
 */
export function sleep(ms: number, signal: AbortSignal, early?: EarlyEnd): Promise<void> {
  const clock = () => globalThis.performance?.now() ?? Date.now();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const started = clock();
    let until = started + ms;
    let timer: ReturnType<typeof setTimeout>;
    let finished = false;
    const done = () => {
      finished = true;
      clearTimeout(timer);
      unbind();
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      done();
      reject(abortError());
    };
    const unbind =
      early?.now?.bind(() => {
        if (finished) return;
        until = Math.min(until, started + early.atLeastMs);
        clearTimeout(timer);
        wait(Math.max(0, until - clock()));
      }) ?? (() => false);
    const wait = (delay: number) => {
      timer = setTimeout(() => {
        const left = until - clock();
        if (left > 0) return wait(left);
        done();
        resolve();
      }, delay);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    wait(ms);
  });
}

export function abortError(): Error {
  const error = new Error("the live document was closed");
  error.name = "AbortError";
  return error;
}

/**
 * Runs `task` with a signal that fires when `parent` fires or after `timeoutMs`, whichever comes
 * first, so that no request waits for ever on an answer that was lost. The task is raced against
 * the signal too: a fetch that ignores its signal still cannot hold the caller.
 */
export async function withTimeout<T>(parent: AbortSignal, timeoutMs: number, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (parent.aborted) throw abortError();
  const controller = new AbortController();
  let fail: (error: Error) => void = () => undefined;
  const fired = new Promise<never>((_, reject) => (fail = reject));
  fired.catch(() => undefined);
  const onAbort = () => {
    const error = abortError();
    controller.abort(error);
    fail(error);
  };
  parent.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    const error = new Error(`no answer within ${timeoutMs} ms`);
    error.name = "TimeoutError";
    controller.abort(error);
    fail(error);
  }, timeoutMs);
  try {
    return await Promise.race([task(controller.signal), fired]);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener("abort", onAbort);
  }
}
