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

/**
 * Ends the waits between retries at once, for a caller who knows the next attempt may now work
 * (the browser is back online): each wait bound to it ends when it fires, but not before the
 * Retry-After it was given (the service asked for that much). A loop notes {@link fires} before
 * each attempt: a fire that came while the attempt was under way ends the wait after it at once.
 */
export class RetryNow {
  private readonly waiting = new Set<() => void>();
  private count = 0;

  /** How many times it fired. */
  get fires(): number {
    return this.count;
  }

  fire(): void {
    this.count++;
    for (const resolve of [...this.waiting]) resolve();
  }

  /** Calls `resolve` on the next fire(); the returned function unbinds it. */
  bind(resolve: () => void): () => void {
    this.waiting.add(resolve);
    return () => this.waiting.delete(resolve);
  }
}

/**
 * What may end a wait early: `now` firing, though never before `atLeastMs` (a Retry-After's wait);
 * at once when it fired since its count was `seen` (while the failed attempt was under way).
 */
export interface EarlyEnd {
  now: RetryNow | undefined;
  atLeastMs: number;
  seen: number;
}

/** The wait after an attempt begun when `now` had fired `seen` times, which failed saying `retryAfterSeconds` (if any). */
export function earlyEnd(now: RetryNow | undefined, seen: number, retryAfterSeconds: number | undefined): EarlyEnd {
  return { now, seen, atLeastMs: (retryAfterSeconds ?? 0) * 1000 };
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
    const endEarly = () => {
      if (finished || !early) return;
      until = Math.min(until, started + early.atLeastMs);
      clearTimeout(timer);
      wait(Math.max(0, until - clock()));
    };
    const unbind = early?.now?.bind(endEarly) ?? (() => false);
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
    if (early?.now && early.now.fires > early.seen) endEarly();
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
