import type { CompactionResult, Store } from "../storage/store.js";
import type { Clock, Timer } from "./clock.js";
import type { DocumentWriter } from "./document-writer.js";
import type { HistoryPolicy } from "./history-policy.js";
import type { ServiceEvents } from "./observer.js";

export interface CompactionOptions {
  store: Store;
  writer: DocumentWriter;
  policy: HistoryPolicy;
  clock: Clock;
  intervalSeconds: number;
  /** Told when a scheduled run fails; the next run tries again. */
  onError?: (error: unknown) => void;
  events?: ServiceEvents;
}

/**
 * Drops the ops of sync versions older than the retention period, at start and then every
 * interval. Milestones, their texts and the deletion record stay whole. Where the head still
 * needs old ops, a fresh snapshot of the head is written first, so nothing it needs is dropped.
 */
export class Compactor {
  private timer: Timer | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: CompactionOptions) {}

  /**
   * One compaction run, after the scheduled run under way (if any) has finished: on PostgreSQL a
   * run that overlapped it would find the compaction lock taken and do nothing.
   */
  async runOnce(): Promise<CompactionResult & { snapshots: number }> {
    await this.running;
    return this.run();
  }

  private async run(): Promise<CompactionResult & { snapshots: number }> {
    const { store, writer, policy } = this.options;
    const started = performance.now();
    const cutoff = policy.cutoff();
    const ids = await store.documentsNeedingSnapshot(cutoff);
    for (const id of ids) await writer.submit(id, (doc) => doc.writeSnapshot());
    const result = await store.compact(cutoff);
    this.options.events?.compaction({ ran: result.ran, versions: result.versions, seconds: (performance.now() - started) / 1000 });
    return { ...result, snapshots: ids.length };
  }

  /**
   * Runs shortly after start (so that the service listens first) and then every interval, one
   * run at a time.
   */
  start(startDelayMs = 1000): void {
    const run = () => {
      if (this.running) return;
      this.running = this.run()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => (this.running = undefined));
    };
    // The schedule does not keep the process alive; each run sets the next timer.
    const schedule = (ms: number, then: () => void) => (this.timer = this.options.clock.timer(ms, then, { unref: true }));
    const every = () => {
      run();
      schedule(this.options.intervalSeconds * 1000, every);
    };
    schedule(startDelayMs, () => {
      run();
      schedule(this.options.intervalSeconds * 1000 - startDelayMs, every);
    });
  }

  /** Stops the schedule and waits for a run under way. */
  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }
}
