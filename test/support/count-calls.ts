import type { Store } from "../../src/storage/store.js";

/** How often each wrapped store read was called since the last reset. */
export interface CallCounts {
  readonly calls: Record<string, number>;
  reset(): void;
}

type ReadMethod = "getDocument" | "getVersion" | "getVersions" | "getMilestones" | "getSnapshot" | "getFullTextAtOrBefore";

/**
 * Wraps the named read methods of `store` in place with counters; the store keeps working as before.
 * Pass the store to buildTestApp's `store` option to see how often the service reads it.
 */
export function countCalls(store: Store, methods: readonly ReadMethod[]): CallCounts {
  const calls: Record<string, number> = {};
  const target = store as unknown as Record<ReadMethod, (...args: unknown[]) => Promise<unknown>>;
  for (const method of methods) {
    const original = target[method].bind(store);
    calls[method] = 0;
    target[method] = (...args: unknown[]) => {
      calls[method] = (calls[method] ?? 0) + 1;
      return original(...args);
    };
  }
  return {
    calls,
    reset: () => {
      for (const method of methods) calls[method] = 0;
    },
  };
}
