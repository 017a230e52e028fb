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
    // A loop rather than push(...slice): a spread of a huge slice overflows the call stack.
    for (let k = from; k < to; k++) this.#lines.push(lines[k] ?? "");
  }

  /** Closes the last op and returns the list; the builder must not be used afterwards. */
  finish(): NormalizedOp[] {
    this.#close();
    return this.#ops;
  }

  #open(): void {
    if (this.#count === 0 && this.#lines.length === 0) this.#start = this.#cursor;
  }

  #close(): void {
    if (this.#count === 0 && this.#lines.length === 0) return;
    this.#ops.push({ index: this.#start, count: this.#count, lines: this.#lines });
    this.#count = 0;
    this.#lines = [];
  }
}
