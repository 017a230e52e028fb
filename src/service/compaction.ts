import type { CompactionResult, Store } from "../storage/store.js";
import type { Clock } from "./clock.js";
import type { DocumentService } from "./documents.js";
import type { ServiceEvents } from "./observer.js";

export interface CompactionOptions {
  store: Store;
  documents: DocumentService;
  clock: Clock;
  retentionSeconds: number;
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
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: CompactionOptions) {}

  /** One compaction run. */
  async runOnce(): Promise<CompactionResult & { snapshots: number }> {
    const { store, documents, clock } = this.options;
    const started = performance.now();
    const cutoff = clock.now() - this.options.retentionSeconds * 1000;
    const ids = await store.documentsNeedingSnapshot(cutoff);
    for (const id of ids) await documents.writer.submit(id, (doc) => doc.writeSnapshot());
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
      this.running = this.runOnce()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => (this.running = undefined));
    };
    this.first = setTimeout(run, startDelayMs);
    this.first.unref();
    this.timer = setInterval(run, this.options.intervalSeconds * 1000);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run under way. */
  async stop(): Promise<void> {
    clearTimeout(this.first);
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
