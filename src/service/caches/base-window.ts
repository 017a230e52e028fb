import { composeChain, composeOps } from "../../core/compose-ops.js";
import type { NormalizedOp } from "../../core/normalized-op.js";

/** Every this many bases below the split, the window keeps the composition up to the split. */
const STRIDE = 16;
/** A window spans at most this many versions (its kept compositions then hold ~32,000 op references). */
export const MAX_WINDOW_VERSIONS = 2048;
/** Below this many versions between a base and the head, composing them directly costs little. */
export const MIN_WINDOW_LAG = 64;
/** The weight of one op reference held by a window, in the head cache's characters (a pointer and its share of an array). */
const REFERENCE_WEIGHT = 8;

/**
 * The composition of the versions after any base in a range, for stale patches whose bases all
 * differ but move forward together: a thousand authors, each sending its next patch on the version
 * its last answer brought, ask for `(head − 1,000, head]`, then `(head − 999, head + 1]`, and so on,
 * and a composition kept for one base serves no other. The window is the two-stack method of
 * sliding-window aggregation, for an associative operation without an inverse: at a split version
 * it composes the versions below, from the split down, keeping the composition up to the split from
 * every {@link STRIDE}th base (`suffixes`), and it extends the composition of the versions after the
 * split (`back`) as versions come. A base in the range is then served by composing the few versions
 * up to its nearest kept base, that kept composition, and `back`: three compositions whose long
 * inputs take the sparse path of composeOps, instead of composing every version since the base.
 * Composition is associative and canonical, so the result is the very one of composing the chain
 * (test/service/base-window.test.ts). When the bases pass the split, the window is built again at
 * the head. It is kept by ForeignOps (foreign-ops.ts) with the compositions by base, with the cached head.
 */
export class BaseWindow {
  private constructor(
    /** The oldest base served. */
    readonly low: number,
    /** The version the kept compositions end at. */
    readonly split: number,
    /** By base `split − k·STRIDE`: the composition of `(base, split]`. */
    private readonly suffixes: Map<number, NormalizedOp[]>,
    /** The composition of `(split, through]`. */
    private back: NormalizedOp[],
    private through: number,
    /** Its share of the head cache's budget. */
    readonly weight: number,
  ) {}

  /**
   * A window over the bases `[low, split)`, from the ops of the versions `(low, split]`, oldest
   * first; `undefined` when the range is empty or too long to keep.
   */
  static build(low: number, split: number, ops: readonly (readonly NormalizedOp[])[]): BaseWindow | undefined {
    if (split <= low || split - low > MAX_WINDOW_VERSIONS || ops.length !== split - low) return undefined;
    const suffixes = new Map<number, NormalizedOp[]>([[split, []]]);
    let suffix: NormalizedOp[] = [];
    let references = 0;
    for (let base = split - 1; base >= low; base--) {
      // The version after `base`, then everything up to the split: a short list and a long one.
      suffix = composeOps(ops[base - low]!, suffix);
      if ((split - base) % STRIDE === 0 || base === low) {
        suffixes.set(base, suffix);
        references += suffix.length;
      }
    }
    return new BaseWindow(low, split, suffixes, [], split, references * REFERENCE_WEIGHT);
  }

  /**
   * Whether a new window may replace this one at `head`: once the head has moved on by half its span
   * past the split (when the bases that built it have passed the split, as they do, it has), and not
   * sooner, so that bases that jump back and forth cannot make every patch pay for a build (each
   * costs up to the square of the span in copied references).
   */
  replaceableAt(head: number): boolean {
    return head - this.split >= Math.max(MIN_WINDOW_LAG, (this.split - this.low) / 2);
  }

  /** Whether the window serves `base` at `head`: the base is in its range and the head is at or past the versions it composed. */
  serves(base: number, head: number): boolean {
    return base >= this.low && base < this.split && head >= this.through;
  }

  /**
   * The composition of `(base, head]` for a base it {@link serves}, given the ops of the versions
   * `(base, head]`, oldest first. Extends `back` to the head on the way.
   */
  composedAfter(base: number, head: number, ops: readonly (readonly NormalizedOp[])[]): NormalizedOp[] {
    if (!this.serves(base, head) || ops.length !== head - base) throw new Error(`the window over [${this.low}, ${this.split}) does not serve base ${base} at ${head}`);
    if (head > this.through) {
      this.back = composeChain([this.back, ...ops.slice(this.through - base)]);
      this.through = head;
    }
    // The nearest kept base at or after `base`: at most STRIDE − 1 versions away, or the low end.
    const kept = base === this.low ? base : Math.min(this.split, this.split - Math.floor((this.split - base) / STRIDE) * STRIDE);
    const upToSplit = kept === base ? this.suffixes.get(base)! : composeOps(composeChain(ops.slice(0, kept - base)), this.suffixes.get(kept)!);
    return composeOps(upToSplit, this.back);
  }
}
