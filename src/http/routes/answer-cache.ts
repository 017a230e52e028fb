/** The bytes each answer cache may hold (docs/api.md, "Bounds"). */
export const ANSWER_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Serialized answers of one route by key (a document and its version: a committed version never
 * changes, so neither does its answer), the most recently used kept within `maxBytes`. An answer
 * larger than a quarter of it is not kept: it would push out everything else. A big document's
 * text is serialized once per version, however often it is read.
 */
export class AnswerCache {
  private readonly answers = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes = ANSWER_CACHE_BYTES) {}

  /** Answers being made: requests for the same key share one. */
  private readonly making = new Map<string, Promise<Buffer>>();

  /** The answer for `key`, made by `make` (and kept) when there is none. */
  get(key: string, make: () => Promise<string>): Promise<Buffer> {
    const kept = this.answers.get(key);
    if (kept !== undefined) {
      this.answers.delete(key);
      this.answers.set(key, kept);
      return Promise.resolve(kept);
    }
    let made = this.making.get(key);
    if (made === undefined) {
      made = this.make(key, make).finally(() => this.making.delete(key));
      this.making.set(key, made);
    }
    return made;
  }

  private async make(key: string, make: () => Promise<string>): Promise<Buffer> {
    const made = Buffer.from(await make(), "utf8");
    if (made.length <= this.maxBytes / 4 && !this.answers.has(key)) {
      this.answers.set(key, made);
      this.bytes += made.length;
      for (const [oldest, answer] of this.answers) {
        if (this.bytes <= this.maxBytes) break;
        this.answers.delete(oldest);
        this.bytes -= answer.length;
      }
    }
    return made;
  }
}

/** The key of a document's (or a read link's) answer at one version. */
export const versionKey = (id: string, version: number): string => `${id}\u0000${version}`;
