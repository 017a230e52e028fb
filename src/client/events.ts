type AnyListener = (...args: unknown[]) => void;

/** A minimal typed event emitter: listeners by event name; a throwing listener never breaks the client. */
export class Emitter<Events extends Record<string, unknown[]>> {
  private readonly listeners = new Map<keyof Events, Set<AnyListener>>();

  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const stored = listener as unknown as AnyListener;
    set.add(stored);
    return () => set.delete(stored);
  }

  count(event: keyof Events): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(...args);
      } catch (error) {
        // A listener's bug must not stop the sync loop; it is reported where a console exists.
        globalThis.console?.error?.("folio client: an event listener threw", error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
