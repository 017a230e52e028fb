import type { DocumentReads, Store } from "../../src/storage/store.js";

/** How often each wrapped store read was called since the last reset. */
export interface CallCounts {
  readonly calls: Record<string, number>;
  /** The sum over every counted read. */
  readonly count: number;
  reset(): void;
}

type ReadMethod = keyof DocumentReads;

/**
 * Wraps `store.reads` in place so that the named reads of every document it hands out are
 * counted; the store keeps working as before. Reads inside a write transaction are not counted.
 * Pass the store to buildTestApp's `store` option to see how often the service reads it.
 */
export function countCalls(store: Store, methods: readonly ReadMethod[]): CallCounts {
  const calls: Record<string, number> = Object.fromEntries(methods.map((method) => [method, 0]));
  const original = store.reads.bind(store);
  store.reads = (id: string) => {
    const reads = original(id);
    const counted = Object.fromEntries(
      methods.map((method) => {
        const read = (reads[method] as (...args: unknown[]) => Promise<unknown>).bind(reads);
        return [method, (...args: unknown[]) => ((calls[method] = (calls[method] ?? 0) + 1), read(...args))];
      }),
    );
    return Object.assign(Object.create(reads) as DocumentReads, counted);
  };
  return {
    calls,
    get count() {
      return Object.values(calls).reduce((sum, count) => sum + count, 0);
    },
    reset: () => {
      for (const method of methods) calls[method] = 0;
    },
  };
}
