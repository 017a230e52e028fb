import { applyOps } from "../core/apply-ops.js";
import { joinLines, splitLines } from "../core/lines.js";
import type { DocumentReads, DocumentRecord, Store, VersionSummary } from "../storage/store.js";
import { recentAfter, type HeadCache } from "./caches/head-cache.js";
import type { HistoryPolicy } from "./history-policy.js";

/** The reads a text rebuild needs: a store's reads, a document transaction, or a working document. */
export type TextSource = Pick<DocumentReads, "fullTextAtOrBefore" | "versions">;

/** A text rebuilt at a version, with the version of the full text it started from. */
export interface RebuiltText {
  /** The exact stored text when the version has one, else the LF-joined lines. */
  text: string;
  lines: string[];
  basisVersion: number;
}

/**
 * The text at `version`: the newest full text at or before it plus the ops after it.
 * `undefined` when the ops it needs were compacted away.
 */
export async function rebuildText(source: TextSource, version: number): Promise<RebuiltText | undefined> {
  const basis = await source.fullTextAtOrBefore(version);
  if (!basis) return undefined;
  let lines = splitLines(basis.text);
  if (basis.version === version) return { text: basis.text, lines, basisVersion: basis.version };
  for (const record of await source.versions(basis.version, version)) {
    if (record.ops === null) return undefined;
    const applied = applyOps(lines, record.ops);
    if (!applied.ok) throw new Error(`stored ops of version ${record.version} of ${record.documentId} do not apply: ${applied.message}`);
    lines = applied.lines;
  }
  return { text: joinLines(lines), lines, basisVersion: basis.version };
}

/**
 * The reads of a document's newest text and recent versions outside a write: from the writer's
 * head cache while it holds the head, from the store otherwise.
 */
export class HeadTexts {
  private readonly store: Store;
  private readonly cache: HeadCache;
  private readonly policy: HistoryPolicy;

  constructor(options: { store: Store; cache: HeadCache; policy: HistoryPolicy }) {
    this.store = options.store;
    this.cache = options.cache;
    this.policy = options.policy;
  }

  /** The length of the newest text the cache holds for `id` (of any version), without a read. */
  knownLength(id: string): number | undefined {
    return this.cache.textLength(id);
  }

  /** The exact newest text, from the cache when it holds this version. */
  async headText(head: DocumentRecord): Promise<string> {
    const cached = this.cache.get(head.id, head.version);
    if (cached) return cached.text;
    const rebuilt = await rebuildText(this.store.reads(head.id), head.version);
    if (!rebuilt) throw new Error(`the newest text of document ${head.id} cannot be rebuilt`);
    return rebuilt.text;
  }

  /**
   * The versions in `(after, head.version]` from memory, when the cache holds this head or a newer one
   * and reaches back that far (and not past the retention cutoff); `undefined` sends the caller to the store.
   */
  recentVersions(head: DocumentRecord, after: number): VersionSummary[] | undefined {
    // A newer entry holds these versions too: committed versions never change.
    const cached = this.cache.atLeast(head.id, head.version);
    const recent = cached && recentAfter(cached, after, this.policy.cutoff());
    return recent && cached.version > head.version ? recent.filter((record) => record.version <= head.version) : recent;
  }
}
