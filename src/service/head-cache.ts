/** What the service keeps in memory of a document's newest text. */
export interface CachedHead {
  version: number;
  /** The exact text: as sent for whole-text changes (CRLF kept), LF-joined lines after a patch. */
  text: string;
  lines: string[];
  /** The version of the newest full text stored at or before `version` (snapshot or milestone). */
  basisVersion: number;
  /** Whether `version` is a milestone (a write pause then needs no promotion). */
  milestone: boolean;
}

/**
 * A bounded, least-recently-used cache of documents' newest texts, keyed by document and checked
 * against the version the store reports: it is only ever a cache, and a miss or a stale version
 * rebuilds from the store.
 */
export class HeadCache {
  private readonly entries = new Map<string, CachedHead>();
  private totalLength = 0;

  constructor(private readonly maxCharacters: number) {}

  get(id: string, version: number): CachedHead | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.version !== version) {
      this.delete(id);
      return undefined;
    }
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  set(id: string, entry: CachedHead): void {
    this.delete(id);
    if (entry.text.length > this.maxCharacters) return;
    this.entries.set(id, entry);
    this.totalLength += entry.text.length;
    for (const [oldest, old] of this.entries) {
      if (this.totalLength <= this.maxCharacters) break;
      this.entries.delete(oldest);
      this.totalLength -= old.text.length;
    }
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.totalLength -= entry.text.length;
  }
}
