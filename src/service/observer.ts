/**
 * What the service tells an observer (the metrics, the logs) about its work. The service knows no
 * metrics library: the composition adds observers to {@link ServiceEvents}, and with none added
 * every report is a loop over an empty list. Reports are synchronous and must not throw.
 */

/**
 * How a content patch ended: `applied` (on the current base), `shifted` (rebased over versions
 * since its base), `repeat` (answered from its receipt), `conflict` (the 409 with the versions since
 * the base), a problem code (each 4xx reason), or `failed` (anything else, e.g. the store).
 */
export type PatchResult = "applied" | "shifted" | "repeat" | "conflict" | "failed" | (string & {});

/** What a feed request was answered with: a diff, the full text, or nothing new (204). */
export type FeedAnswer = "ops" | "content" | "none";

export interface ServiceObserver {
  patch?(result: PatchResult): void;
  /** One store commit of a document's batch: how many commands it carried, how long it took. */
  commit?(batchSize: number, seconds: number): void;
  feedAnswer?(kind: FeedAnswer): void;
  /** A waiting feed request was woken by a commit (or by a reset after lost notices). */
  feedWakeup?(): void;
  /** A compaction run ended (`ran` false: another instance was compacting). */
  compaction?(result: { ran: boolean; versions: number; seconds: number }): void;
  /** A failed attempt at the document list; `lockedUntil` is set when it locked the list. */
  listFailure?(lockedUntil: number | undefined): void;
}

type Report = { [K in keyof ServiceObserver]-?: NonNullable<ServiceObserver[K]> };

/** The fan-out the service reports to; observers are added by the composition. */
export class ServiceEvents implements Report {
  private readonly observers: ServiceObserver[] = [];

  add(observer: ServiceObserver): void {
    this.observers.push(observer);
  }

  patch(result: PatchResult): void {
    for (const observer of this.observers) observer.patch?.(result);
  }

  commit(batchSize: number, seconds: number): void {
    for (const observer of this.observers) observer.commit?.(batchSize, seconds);
  }

  feedAnswer(kind: FeedAnswer): void {
    for (const observer of this.observers) observer.feedAnswer?.(kind);
  }

  feedWakeup(): void {
    for (const observer of this.observers) observer.feedWakeup?.();
  }

  compaction(result: { ran: boolean; versions: number; seconds: number }): void {
    for (const observer of this.observers) observer.compaction?.(result);
  }

  listFailure(lockedUntil: number | undefined): void {
    for (const observer of this.observers) observer.listFailure?.(lockedUntil);
  }

  /** Whether anybody listens: callers skip measuring (a clock read) when nobody does. */
  get observed(): boolean {
    return this.observers.length > 0;
  }
}
