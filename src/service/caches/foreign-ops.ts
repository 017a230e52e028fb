import { composeChain, composeOps } from "../../core/compose-ops.js";
import type { NormalizedOp } from "../../core/normalized-op.js";
import type { VersionSummary } from "../../storage/store.js";
import { BaseWindow, MIN_WINDOW_LAG } from "./base-window.js";
import { ServiceError } from "../service-error.js";

/** How many bases' compositions a document keeps. */
const KEPT_BASES = 64;

/** The composed ops of the versions in `(base, through]`, for a base the kept compositions are keyed by. */
export interface ForeignComposition {
  through: number;
  ops: NormalizedOp[];
  /** Its share of the head cache's budget, worked out when the entry is cached, not per patch. */
  weight?: number;
}

/** What {@link ForeignOps.since} reads the versions with: the versions in `(after, head]`, oldest first (a working document). */
export interface VersionsAfter {
  versionsAfter(after: number): Promise<readonly VersionSummary[]>;
}

/**
 * The foreign ops since a base: the composition of the ops of every version after it, which a stale
 * patch is rebased over and answered with. Composing the thousand versions since the base of an
 * author among a thousand costs about 1 ms, so the compositions made are kept and reused
 * (docs/architecture.md, "The write path"), three ways:
 *
 * - by base: editors share bases (the text they opened, the version of the feed answer they all
 *   got), so a patch extends the composition the last patch on its base made by the versions since;
 * - a window of bases (base-window.ts): authors whose bases all differ but move forward together;
 * - the nearest later base kept: a base with none of its own composes the versions up to it with it.
 *
 * Every way gives the very composition of the chain, since composition is associative and canonical
 * (test/service/foreign-ops.test.ts). One object per document lives with the cached head
 * (head-cache.ts, `CachedHead.foreignOps`) and is changed in place: a batch whose writes fail drops
 * that entry, and with it any composition that reached into versions that were never committed.
 */
export class ForeignOps {
  /** By base, the most recently used last. */
  private readonly byBase = new Map<number, ForeignComposition>();
  private window: BaseWindow | undefined;

  /** @param reach how far behind the head a kept base may lie: the versions the head cache keeps in memory */
  constructor(private readonly reach: number) {}

  /**
   * The composed ops of the versions in `(base, head]`, read with `versions` (from the end of what is
   * kept on), for a base whose ops the caller checked are kept; empty for a base at or past the head.
   * Throws `base-unavailable` when a version it needs was compacted.
   */
  async since(base: number, head: number, versions: VersionsAfter): Promise<NormalizedOp[]> {
    if (base >= head) return [];
    const known = this.byBase.get(base);
    const after = await versions.versionsAfter(known?.through ?? base);
    const ops = known ? composeChain([known.ops, ...opsOf(after, base)]) : (this.fromWindow(base, head, after) ?? this.fromNearest(base, head, after));
    this.keep(base, head, ops);
    return ops;
  }

  /** Whether the window of bases serves `base` at `head` (the tests count the patches it served). */
  windowServes(base: number, head: number): boolean {
    return this.window?.serves(base, head) ?? false;
  }

  /** Its share of the head cache's budget, each list of ops weighed by `weigh`; the window's op references count too. */
  weight(weigh: (ops: readonly NormalizedOp[]) => number): number {
    let weight = this.window?.weight ?? 0;
    for (const composition of this.byBase.values()) weight += composition.weight ??= weigh(composition.ops);
    return weight;
  }

  /**
   * From the window, built anew at the head when the bases passed it; `undefined` for a base close to
   * the head (composing directly costs little), for one older than the window (a straggler takes the
   * other ways), for one past a window that may not be replaced yet (BaseWindow.replaceableAt), or
   * when the versions are not all at hand.
   */
  private fromWindow(base: number, head: number, after: readonly VersionSummary[]): NormalizedOp[] | undefined {
    if (head - base < MIN_WINDOW_LAG || after.length !== head - base || after[0]?.version !== base + 1) return undefined;
    let window = this.window;
    if (window && base < window.low) return undefined;
    const ops = opsOf(after, base);
    if (!window?.serves(base, head)) {
      if (window && !window.replaceableAt(head)) return undefined;
      window = BaseWindow.build(base, head, ops);
      if (!window) return undefined;
      this.window = window;
    }
    return window.composedAfter(base, head, ops);
  }

  /**
   * From the composition of the nearest later base, when one is kept: the versions up to it composed
   * with it and with the versions after it (`after` holds every version after `base`); from every
   * version otherwise. Authors' bases lie close to one another, so this costs far less.
   */
  private fromNearest(base: number, head: number, after: readonly VersionSummary[]): NormalizedOp[] {
    const later = this.nearestKeptAfter(base);
    const composition = later === undefined ? undefined : this.byBase.get(later);
    if (later === undefined || !composition || composition.through > head || after[0]?.version !== base + 1) return composeChain(opsOf(after, base));
    const upToLater = opsOf(after.filter((record) => record.version <= later), base);
    const pastKept = opsOf(after.filter((record) => record.version > composition.through), base);
    return composeOps(composeChain(upToLater), composeChain([composition.ops, ...pastKept]));
  }

  private nearestKeptAfter(base: number): number | undefined {
    let nearest: number | undefined;
    for (const kept of this.byBase.keys()) if (kept > base && (nearest === undefined || kept < nearest)) nearest = kept;
    return nearest;
  }

  private keep(base: number, through: number, ops: NormalizedOp[]): void {
    // The most recently used bases stay; one whose versions left the recent ones is of no more use.
    this.byBase.delete(base);
    this.byBase.set(base, { through, ops });
    for (const [kept] of this.byBase) {
      if (this.byBase.size <= KEPT_BASES && kept >= through - this.reach) break;
      this.byBase.delete(kept);
    }
  }
}

/** The ops of each version, oldest first; `base-unavailable` when one was compacted. */
function opsOf(records: readonly VersionSummary[], base: number): NormalizedOp[][] {
  return records.map((record) => {
    if (record.ops === null) throw new ServiceError("base-unavailable", `the versions after base ${base} were compacted; reload the document`);
    return record.ops;
  });
}
