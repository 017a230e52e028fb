import type { NormalizedOp } from "../../core/normalized-op.js";
import type { VersionSummary } from "../../storage/store.js";
import type { ForeignOps } from "./foreign-ops.js";

/**
 * How many of a document's newest versions stay in memory beside its text: a patch rebases, and a
 * poll composes, over the versions since its base without reading the store while the base is
 * among them. At 1,000 patches a second on one document that reaches four seconds back, which
 * covers editors whose first patches were made on the text they opened while everybody typed.
 */
export const RECENT_VERSIONS = 4096;

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
  /**
   * The newest versions, oldest first, contiguous and ending at `version` (possibly empty): the
   * rebase of a stale patch and the feed read their ops here instead of in the store.
   */
  recent: VersionSummary[];
  /** {@link summaryWeight} of `recent`, kept up to date as it changes rather than recounted. */
  recentWeight: number;
  /**
   * The compositions of the versions after recent bases (foreign-ops.ts): a stale patch is rebased
   * over them without composing every version after its base again.
   */
  foreignOps?: ForeignOps;
}

/** The cache's budget, in characters of texts and versions together. */
export const HEAD_CACHE_CHARACTERS = 256 * 1024 * 1024;

/** A list of ops' share of the cache's budget, counted like a version summary's ops. */
export function opsWeight(ops: readonly NormalizedOp[]): number {
  let weight = 0;
  for (const op of ops) {
    weight += OP_OVERHEAD;
    for (const line of op.lines) weight += line.length;
  }
  return weight;
}

// Compaction (by this instance or another) only drops versions created before the retention
// cutoff, so memory answers only for versions created at or after `notBefore` (the cutoff): older
// ones are read from the store, which knows whether they were compacted.

/** The version `version` of `entry.recent`, when it holds it and it is younger than `notBefore`. */
export function recentAt(entry: CachedHead, version: number, notBefore: number): VersionSummary | undefined {
  const first = entry.recent[0];
  const record = first && version >= first.version && version <= entry.version ? entry.recent[version - first.version] : undefined;
  return record && record.createdAt >= notBefore ? record : undefined;
}

/**
 * The versions of `entry.recent` in `(after, entry.version]`, or `undefined` when the entry does not
 * reach back that far or the oldest of them is older than `notBefore`.
 */
export function recentAfter(entry: CachedHead, after: number, notBefore: number): VersionSummary[] | undefined {
  if (after >= entry.version) return [];
  const first = entry.recent[0];
  if (!first || first.version > after + 1) return undefined;
  const range = entry.recent.slice(after + 1 - first.version);
  return range[0] && range[0].createdAt >= notBefore ? range : undefined;
}

/**
 * A bounded, least-recently-used cache of documents' newest texts, keyed by document and checked
 * against the version the store reports: it is only ever a cache, and a miss or a stale version
 * rebuilds from the store.
 */
export class HeadCache {
  private readonly entries = new Map<string, { entry: CachedHead; weight: number }>();
  private totalWeight = 0;
  private hits = 0;
  private misses = 0;

  /** @param maxCharacters the budget: the texts' characters plus an estimate of their recent versions' */
  constructor(private readonly maxCharacters: number) {}

  /** The entry of `id` at exactly `version`. */
  get(id: string, version: number): CachedHead | undefined {
    return this.lookup(id, version, true);
  }

  /**
   * The entry of `id` at `version` or newer. An entry older than `version` is stale (a commit it does
   * not hold was made) and is dropped; a newer one stays: the one who asks read the head before the
   * writer's last commit (a feed read racing a write), and the writer's next batch needs the entry,
   * with its recent versions and kept compositions. Dropping it there made every patch after it read
   * its base's versions from the store until the recent versions filled up again
   * (docs/benchmarks-history.md, the third session of 2026-11-24).
   */
  atLeast(id: string, version: number): CachedHead | undefined {
    return this.lookup(id, version, false);
  }

  /**
   * The length of the newest text held for `id`, whatever its version, without counting as a use:
   * what the rate limits weigh a request on the document by (src/http/rate-limits.ts).
   */
  textLength(id: string): number | undefined {
    return this.entries.get(id)?.entry.text.length;
  }

  private lookup(id: string, version: number, exact: boolean): CachedHead | undefined {
    const kept = this.entries.get(id);
    if (!kept || kept.entry.version < version || (exact && kept.entry.version !== version)) {
      this.misses++;
      if (kept && kept.entry.version < version) this.delete(id);
      return undefined;
    }
    this.hits++;
    this.entries.delete(id);
    this.entries.set(id, kept);
    return kept.entry;
  }

  set(id: string, entry: CachedHead): void {
    this.delete(id);
    // The compositions kept with the entry count too (at most a few bases, each within the recent versions).
    const weight = entry.text.length + entry.recentWeight + (entry.foreignOps?.weight(opsWeight) ?? 0);
    if (weight > this.maxCharacters) return;
    this.entries.set(id, { entry, weight });
    this.totalWeight += weight;
    for (const [oldest, old] of this.entries) {
      if (this.totalWeight <= this.maxCharacters) break;
      this.entries.delete(oldest);
      this.totalWeight -= old.weight;
    }
  }

  /** For metrics: what the cache holds now, and its lookups since it was made. */
  stats(): { entries: number; characters: number; hits: number; misses: number } {
    return { entries: this.entries.size, characters: this.totalWeight, hits: this.hits, misses: this.misses };
  }

  delete(id: string): void {
    const kept = this.entries.get(id);
    if (!kept) return;
    this.entries.delete(id);
    this.totalWeight -= kept.weight;
  }
}

// A version summary's share of the budget, counting a character as a byte: its free-form strings,
// plus a flat amount for the object, its fixed fields (the checksum string among them) and each op.
// Measured: 100,000 summaries of one-line patches took about 670 bytes each of V8 heap (heapUsed
// after a forced GC), of which about 40 were their free-form strings.
const SUMMARY_OVERHEAD = 560;
const OP_OVERHEAD = 70;

/** A version summary's share of the cache's budget. */
export function summaryWeight(summary: VersionSummary): number {
  const weight = SUMMARY_OVERHEAD + summary.title.length + (summary.clientId?.length ?? 0) + (summary.displayName?.length ?? 0);
  return weight + opsWeight(summary.ops ?? []);
}
