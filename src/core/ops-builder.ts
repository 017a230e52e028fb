import type { NormalizedOp } from "./normalized-op.js";

/**
 * Builds an op list in canonical form from a left-to-right walk over a base text: kept runs, taken
 * out runs and put in lines. Everything between two kept runs becomes one op, so the output is
 * sorted, ops are separated by at least one kept line (touching changes are one op) and no op is a
 * no-op. Internal to src/core: compose, diff and canonicalOps share it so they agree on the form.
 */
export class OpsBuilder {
  readonly #ops: NormalizedOp[] = [];
  #cursor = 0;
  #start = 0;
  #count = 0;
  #lines: string[] = [];
  /** The whole lines of one input op, taken over as they are until more lines join them (see {@link addShared}). */
  #shared: readonly string[] | undefined;

  /** Keeps the next `n` base lines; closes the op being built, if any. */
  keep(n: number): void {
    if (n <= 0) return;
    this.#close();
    this.#cursor += n;
  }

  /** Takes the next `n` base lines out. */
  remove(n: number): void {
    if (n <= 0) return;
    this.#open();
    this.#count += n;
    this.#cursor += n;
  }

  /** Puts `lines[from..to)` in at the current position. */
  add(lines: readonly string[], from = 0, to = lines.length): void {
    if (to <= from) return;
    this.#open();
    if (this.#shared) {
      this.#lines = [...this.#shared];
      this.#shared = undefined;
    }
    // A loop rather than push(...slice): a spread of a huge slice overflows the call stack.
    for (let k = from; k < to; k++) this.#lines.push(lines[k] ?? "");
  }

  /**
   * Like {@link add}, for the lines of an op (which nobody changes: NormalizedOp's lines are
   * readonly): an op whose put-in lines are all of them and no others gets that very array. Compositions
   * then share the lines of the versions they are made of, instead of copying them line by line.
   */
  addShared(lines: readonly string[], from = 0, to = lines.length): void {
    if (from !== 0 || to !== lines.length || to === 0 || this.#lines.length > 0 || this.#shared !== undefined) {
      this.add(lines, from, to);
      return;
    }
    this.#open();
    this.#shared = lines;
  }

  /** Closes the last op and returns the list; the builder must not be used afterwards. */
  finish(): NormalizedOp[] {
    this.#close();
    return this.#ops;
  }

  #empty(): boolean {
    return this.#count === 0 && this.#lines.length === 0 && this.#shared === undefined;
  }

  #open(): void {
    if (this.#empty()) this.#start = this.#cursor;
  }

  #close(): void {
    if (this.#empty()) return;
    this.#ops.push({ index: this.#start, count: this.#count, lines: this.#shared ?? this.#lines });
    this.#count = 0;
    this.#lines = [];
    this.#shared = undefined;
  }
}
