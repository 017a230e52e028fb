import type { ReceiptKey, Store } from "../storage/store.js";
import type { HeadCache } from "./caches/head-cache.js";
import type { ServiceEvents } from "./observer.js";
import { WorkingDocument, type WritePolicy } from "./working-document.js";

/** A write decided on the working document; it throws a ServiceError to refuse. */
export type WriteCommand<T> = (document: WorkingDocument) => Promise<T>;

/** What the writer may read ahead for a command, once for its whole batch. */
export interface WriteHints {
  /** The receipt the command looks up first (a content patch's clientId and seq). */
  receipt?: ReceiptKey;
}

interface Queued {
  command: WriteCommand<unknown>;
  hints: WriteHints;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Called after a batch of one document committed, with the new head version. */
export type CommittedListener = (documentId: string, version: number) => void;

// Enough to amortize one durable commit over many patches, small enough to keep latency flat.
const MAX_BATCH = 256;

export interface DocumentWriterOptions {
  store: Store;
  policy: WritePolicy;
  /** Told of every batch that made a new version (the hub wakes the feed's waiters). */
  onCommitted: CommittedListener;
  /** The hot documents' newest texts and versions: the writer keeps it current, the text reads read it (services.ts builds the one). */
  cache: HeadCache;
  events?: ServiceEvents;
}

/**
 * The one way into a document's history. Commands for one document run one after another; the
 * commands that queue up while a commit is on disk run together in the next batch, each decided
 * on the state the previous one left, and share one durable commit. Every command's promise
 * settles after that commit.
 */
export class DocumentWriter {
  private readonly queues = new Map<string, Queued[]>();
  private readonly draining = new Map<string, Promise<void>>();

  private readonly store: Store;
  private readonly policy: WritePolicy;
  private readonly onCommitted: CommittedListener;
  /** The head cache the writer keeps current (see {@link DocumentWriterOptions.cache}). */
  readonly cache: HeadCache;
  private readonly events: ServiceEvents | undefined;

  constructor(options: DocumentWriterOptions) {
    this.store = options.store;
    this.policy = options.policy;
    this.onCommitted = options.onCommitted;
    this.cache = options.cache;
    this.events = options.events;
  }

  submit<T>(id: string, command: WriteCommand<T>, hints: WriteHints = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queue = this.queues.get(id) ?? [];
      queue.push({ command, hints, resolve: resolve as (value: unknown) => void, reject });
      this.queues.set(id, queue);
      if (!this.draining.has(id)) this.draining.set(id, this.drain(id));
    });
  }

  /** Resolves when every command handed in so far has settled. */
  async idle(): Promise<void> {
    while (this.draining.size > 0) await Promise.all([...this.draining.values()]);
  }

  private async drain(id: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(id);
      if (!queue || queue.length === 0) {
        // In the same step as the check: a command submitted from now on (even by a continuation of
        // the batch just answered, before this promise settles) starts a new drain.
        this.queues.delete(id);
        this.draining.delete(id);
        return;
      }
      const batch = queue.splice(0, MAX_BATCH);
      await this.runBatch(id, batch);
    }
  }

  private async runBatch(id: string, batch: Queued[]): Promise<void> {
    let working: WorkingDocument | undefined;
    const started = this.events?.observed ? performance.now() : undefined;
    try {
      // One read for the receipts of the whole batch instead of one per patch, made by the store
      // with the document's lock (one round trip for both on PostgreSQL).
      const receipts = batch.flatMap((item) => (item.hints.receipt ? [item.hints.receipt] : []));
      let runs = 0;
      const outcomes = await this.store.write(id, async (tx) => {
        // Run again (the PostgreSQL store does when a commit it shared failed): the cached head's
        // compositions may have grown over versions that run staged, so it starts from the store.
        if (runs++ > 0) this.cache.delete(id);
        working = await WorkingDocument.load(id, tx, this.policy, (version) => this.cache.get(id, version));
        if (receipts.length > 0) await working.loadReceipts(receipts);
        const settled: PromiseSettledResult<unknown>[] = [];
        for (const item of batch) {
          try {
            settled.push({ status: "fulfilled", value: await item.command(working) });
          } catch (error) {
            settled.push({ status: "rejected", reason: error });
          }
        }
        return settled;
      }, receipts.length > 0 ? { receipts } : undefined);
      if (started !== undefined && working?.changed) this.events?.commit(batch.length, (performance.now() - started) / 1000);
      const entry = working?.cacheEntry();
      if (entry) this.cache.set(id, entry);
      const head = working?.document;
      if (head && working?.changed) this.onCommitted(id, head.version);
      outcomes.forEach((outcome, index) => {
        const item = batch[index];
        if (!item) return;
        if (outcome.status === "fulfilled") item.resolve(outcome.value);
        else item.reject(outcome.reason);
      });
    } catch (error) {
      this.cache.delete(id);
      for (const item of batch) item.reject(error);
    }
  }
}
