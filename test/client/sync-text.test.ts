import { ChangeSet } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { PLAIN_CODEC } from "../../src/client/line-codec.js";
import { serviceTextOf } from "../../src/client/service-text.js";
import { acked, edited, followed, nextPatch, sent, startSync, type SyncState } from "../../src/client/sync-text.js";
import { replaceLine } from "../support/client-harness.js";

// The texts of a live document through a remote change (src/client/sync-text.ts) where the
// service's line ops, turned into characters (core/char-diff.ts), put an insertion beside like
// characters: a blank typed next to someone's blank could be either one. Which one the other person
// typed decides where their next keys go (docs/editing-protocol.md, "The merge rule"). Found by
// test/e2e/editor-races.test.ts with one page starting 50 to 100 ms after the other.

/** The pending edits sent and answered with nothing in between (a 200 at `version`). */
function sentAndConfirmed(state: SyncState, version: number): SyncState {
  const inflight = nextPatch(state, PLAIN_CODEC, { checksum: "sha256:0", clientId: "bob", seq: 1, displayName: undefined, milestone: false });
  const answer = acked(sent(state, inflight), PLAIN_CODEC, { version, opsSinceBase: [], checksum: "sha256:0" });
  if ("unusable" in answer) throw new Error(answer.unusable);
  return answer.state;
}

/** Bob's texts: `confirmed` at version 3 with his own characters `[from, to)` in it, then `typed` at `at` (pending). */
function bob(confirmed: string, own: [number, number], at: number, typed: string) {
  const start = startSync(serviceTextOf(PLAIN_CODEC, 3, confirmed), { ranges: [{ from: own[0], to: own[1], at: 0 }], clock: 1 });
  return edited(start, ChangeSet.of([{ from: at, insert: typed }], confirmed.length));
}

describe("a remote blank beside one's own", () => {
  it("typed after one's own blank goes after what one typed on from it (the rule's tie: one goes on after one's own text)", () => {
    // Bob typed " " after "Release on" (confirmed) and "Tuesd" (pending); Ann saw his blank and typed hers after it.
    const state = bob("Launch\nRelease on \nDone", [17, 18], 18, "Tuesd");
    const first = followed(state, PLAIN_CODEC, [replaceLine(1, "Release on  ")], 4)!;
    expect(first.state.local.toString()).toEqual("Launch\nRelease on Tuesd \nDone");
    const second = followed(first.state, PLAIN_CODEC, [replaceLine(1, "Release on  M")], 5)!;
    expect(second.state.local.toString()).toEqual("Launch\nRelease on Tuesd M\nDone");
  });

  it("typed before one's own blank (after the other's own word) stays before it: the other's latest text goes on", () => {
    // Ann's "Monday" came in; Bob typed " " after it (confirmed) and "Tues" (pending); Ann, not yet
    // seeing his blank, typed hers after her word, then "via". Either blank could be hers in the
    // line "Release on Monday  ": the one after her latest text is taken.
    let state = startSync(serviceTextOf(PLAIN_CODEC, 3, "Launch\nRelease on\nDone"));
    state = followed(state, PLAIN_CODEC, [replaceLine(1, "Release on Monday")], 4)!.state;
    state = sentAndConfirmed(edited(state, ChangeSet.of([{ from: 24, insert: " " }], 29)), 5);
    state = edited(state, ChangeSet.of([{ from: 25, insert: "Tues" }], 30));
    const first = followed(state, PLAIN_CODEC, [replaceLine(1, "Release on Monday  ")], 6)!;
    expect(first.state.local.toString()).toEqual("Launch\nRelease on Monday  Tues\nDone");
    expect(first.remote.toJSON()).toEqual([24, [0, " "], 10]);
    const second = followed(first.state, PLAIN_CODEC, [replaceLine(1, "Release on Monday via ")], 7)!;
    expect(second.state.local.toString()).toEqual("Launch\nRelease on Monday via Tues\nDone");
  });
});

describe("a remote empty line beside one's own", () => {
  /** Bob pressed Enter after "Steps" (confirmed) and typed "b1" in his new line (pending). */
  function bobOnHisLine(): SyncState {
    const start = startSync(serviceTextOf(PLAIN_CODEC, 3, "Launch\nSteps\nDone"));
    const line = sentAndConfirmed(edited(start, ChangeSet.of([{ from: 12, insert: "\n" }], 17)), 4);
    return edited(line, ChangeSet.of([{ from: 13, insert: "b1" }], 18));
  }

  it("put in before one's own empty line (hung on it from above) stays before it: each person's lines in one block", () => {
    // Ann saw Bob's empty line and pressed Enter after "Steps": her new line hangs on his, "\n" before it.
    const first = followed(bobOnHisLine(), PLAIN_CODEC, [{ index: 2, count: 1, lines: ["", ""] }], 5)!;
    expect(first.state.local.toString()).toEqual("Launch\nSteps\n\nb1\nDone");
    expect(first.remote.toJSON()).toEqual([12, [0, "", ""], 8]);
    const second = followed(first.state, PLAIN_CODEC, [replaceLine(2, "a1")], 6)!;
    expect(second.state.local.toString()).toEqual("Launch\nSteps\na1\nb1\nDone");
    // Ann goes on after her own line ("\na2" hung on it), Bob after his.
    const third = followed(second.state, PLAIN_CODEC, [replaceLine(2, "a1", "a2")], 7)!;
    const bob = edited(third.state, ChangeSet.of([{ from: 21, insert: "\nb2" }], 26));
    expect(bob.local.toString()).toEqual("Launch\nSteps\na1\na2\nb1\nb2\nDone");
  });

  it("put in after one's own empty line (hung on the line below it) goes after it", () => {
    // Ann saw Bob's empty line and pressed Enter at its end: her new line hangs on "Done".
    const first = followed(bobOnHisLine(), PLAIN_CODEC, [{ index: 3, count: 1, lines: ["", "Done"] }], 5)!;
    expect(first.state.local.toString()).toEqual("Launch\nSteps\nb1\n\nDone");
    const second = followed(first.state, PLAIN_CODEC, [replaceLine(3, "a1")], 6)!;
    expect(second.state.local.toString()).toEqual("Launch\nSteps\nb1\na1\nDone");
  });
});
