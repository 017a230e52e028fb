import { describe, expect, it } from "vitest";
import { simulate, type SimClient } from "../support/sync-simulation.js";

// The Chromium races of test/e2e/editor-races.test.ts, played out in the simulation of
// test/support/sync-simulation.ts: the same starting text and the same keys, but every order of
// keys, sends, the service's answers and feed answers that a seed's scheduler picks, hundreds of
// times in a second. Each race is checked against what the people did (docs/editing-protocol.md,
// "The merge rule"): what was deleted stays deleted, each person's words are whole and there once.

interface Race {
  initial: string;
  /** Ann's and Bob's first position, selection and keys. */
  prepare(ann: SimClient, bob: SimClient): void;
  /** What a result must hold: words whole, deleted text gone. */
  check(text: string): boolean;
}

const TRIALS = 400;

/** Puts a person's typing at `cursor` (with a selection to `selected`, replaced by the first key). */
function types(client: SimClient, cursor: number, keys: string, selected?: number): void {
  client.typing = { cursor, selected, keys: [...keys], word: [] };
}

const count = (text: string, part: string) => text.split(part).length - 1;

function play(race: Race): string[] {
  const failures: string[] = [];
  for (let seed = 1; seed <= TRIALS; seed++) {
    try {
      const { text } = simulate(seed, { clients: 2, steps: 0, initial: race.initial, prepare: ([ann, bob]) => race.prepare(ann!, bob!) });
      if (!race.check(text)) failures.push(`seed ${seed}: ${JSON.stringify(text)}`);
    } catch (error) {
      failures.push(`seed ${seed}: ${String(error)}`);
    }
  }
  return failures;
}

describe("two people's races, in every order a seeded scheduler picks", () => {
  it("Ann replaces a whole line while Bob types inside it: the deleted words never return, both words whole", () => {
    const initial = "first line\nsecond line x1 y2 z3\nthird";
    const line = { from: 11, to: 31 };
    const check = (text: string) => {
      const second = text.split("\n").slice(1, -1).join("\n");
      return text.startsWith("first line\n") && text.endsWith("\nthird") && count(second, "replaced by Ann") === 1 && count(second, "BOB") === 1 && second.length === "replaced by AnnBOB".length;
    };
    // Ann's first key replaces her selection before she sees any of Bob's; Bob's first key comes
    // before he sees Ann's, or at any time after.
    const annFirst = (ann: SimClient) => (ann.edit([{ from: line.from, to: line.to, insert: "r" }]), types(ann, line.from + 1, "eplaced by Ann"));
    expect(play({ initial, check, prepare: (ann, bob) => (annFirst(ann), types(bob, line.from + 6, "BOB")) })).toEqual([]);
    expect(play({ initial, check, prepare: (ann, bob) => (annFirst(ann), bob.edit([{ from: line.from + 6, insert: "B" }]), types(bob, line.from + 7, "OB")) })).toEqual([]);
  });

  it("Ann replaces a selection inside a line while Bob types in it: `the cat jumps` and XYZ, whole", () => {
    const initial = "the quick brown fox jumps";
    const check = (text: string) => count(text, "cat") === 1 && count(text, "XYZ") === 1 && /^the (catXYZ|XYZcat) jumps$/.test(text);
    expect(play({ initial, check, prepare: (ann, bob) => (ann.edit([{ from: 4, to: 19, insert: "c" }]), types(ann, 5, "at"), types(bob, 11, "XYZ")) })).toEqual([]);
  });

  it("two people type at one point: each one's words in one piece", () => {
    const initial = "Release\nAnnounce on\nShip";
    const check = (text: string) => /^Release\nAnnounce on( Monday via blog Tuesday via email| Tuesday via email Monday via blog)\nShip$/.test(text);
    expect(play({ initial, check, prepare: (ann, bob) => (types(ann, 19, " Monday via blog"), types(bob, 19, " Tuesday via email")) })).toEqual([]);
  });

  it("two people press Enter after one line and type lines: each one's lines in one block", () => {
    const initial = "a\nz";
    const check = (text: string) => /^a(\na1\na2\na3\nb1\nb2\nb3|\nb1\nb2\nb3\na1\na2\na3)\nz$/.test(text);
    expect(play({ initial, check, prepare: (ann, bob) => (types(ann, 1, "\na1\na2\na3"), types(bob, 1, "\nb1\nb2\nb3")) })).toEqual([]);
  });
});
