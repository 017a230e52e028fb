/**
 * The two ways feed requests with one `since` share one read of the store (and with it one composed
 * diff, one answer object and one serialized body): `joined` for requests that read at once, `shared`
 * for waiters woken by one commit. feed-reads.ts says which one a poll takes.
 */
export class SharedReads<A> {
  /** Reads at once that requests with the same `since` may still join (see {@link joined}). */
  private readonly joinable = new Map<string, Promise<A | undefined>>();
  /** Reads for one wake-up (see {@link shared}). */
  private readonly wakeUps = new Map<string, Promise<A | undefined>>();

  /** @param read what is new since `since` right now, or `undefined` when nothing is. */
  constructor(private readonly read: (id: string, since: number) => Promise<A | undefined>) {}

  // Requests that read at once with the same `since` share a read that has not yet read the head:
  // its answer is as new as the store after they all arrived, so each gets what a read of its own
  // would give. A read reads the head in the next turn of the event loop at the earliest, so the
  // requests parsed from one burst of packets (a crowd of authors polling again after one answer)
  // share it, instead of each composing its own diff against a head that moved a little since the
  // one before.
  joined(id: string, since: number): Promise<A | undefined> {
    const key = `${id}\u0000${since}`;
    const open = this.joinable.get(key);
    if (open) return open;
    const answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // From here on, the head this read reads may be older than a request that arrives now.
      if (this.joinable.get(key) === answer) this.joinable.delete(key);
      return this.read(id, since);
    });
    this.joinable.set(key, answer);
    return answer;
  }

  // Waiters woken by one commit with the same `since` share one read. The key holds the commit's
  // version, so nobody joins a read that started before the commit it was woken for.
  shared(id: string, since: number, version: number): Promise<A | undefined> {
    const key = `${id}\u0000${since}\u0000${version}`;
    let answer = this.wakeUps.get(key);
    if (!answer) {
      answer = this.read(id, since).finally(() => this.wakeUps.delete(key));
      this.wakeUps.set(key, answer);
    }
    return answer;
  }
}
