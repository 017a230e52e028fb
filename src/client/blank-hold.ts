import type { TextEdit } from "../core/text-edits.js";

/**
 * How long the next patch waits for the next key: while the last local edit only put in text
 * ending with a blank (someone starting a word, at the end of a line or between two words), up
 * to `blankHoldMs` after it. A lone blank is the one change two people typing at one point make
 * the same way at once, which the service keeps once (a change already made) and a merge counts
 * once inside a word's blanks; then both people's next letters land after one blank, glued into
 * one word. Sent with the letter after it, it is a word of its own (docs/editing-protocol.md,
 * "A blank waits for the next key").
 */
export class BlankHold {
  /** performance.now() of the last local edit. */
  private lastEdit = -Infinity;
  /** The last local edit only put text in, each piece ending with a blank (someone starting a word). */
  private blankTyped = false;

  constructor(private readonly holdMs: number) {}

  /** Told of every local edit, with its character edits. */
  edited(edits: readonly TextEdit[]): void {
    this.lastEdit = performance.now();
    this.blankTyped = edits.every((edit) => edit.from === edit.to && /[ \t]$/.test(edit.insert));
  }

  /** The wait left; 0: send now (always with a milestone waiting). */
  remainingMs(milestoneWaiting: boolean): number {
    if (this.holdMs <= 0 || milestoneWaiting || !this.blankTyped) return 0;
    return Math.max(0, this.lastEdit + this.holdMs - performance.now());
  }
}
