import { createHash, randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { composeChain } from "../../src/core/compose-ops.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";
import { BaseWindow, MAX_WINDOW_VERSIONS } from "../../src/service/caches/base-window.js";
import { joinLines, splitLines } from "../../src/core/lines.js";
import { toLineOperation } from "../../src/core/normalized-op.js";
import { rebuildAfterPatch } from "../../src/core/rebuild-rule.js";
import type { PatchOutcome } from "../../src/service/patch-content.js";
import { prng } from "../support/prng.js";
import { appPerTest } from "../support/app-per-test.js";

const SEED = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : randomInt(2 ** 31);

/** A chain of `length` versions on a text of `lines` lines: each an op list against the text the ones before made. */
function randomChain(random: () => number, lines: number, length: number, dense: boolean): NormalizedOp[][] {
  let text = Array.from({ length: lines }, (_, n) => `line ${n}`);
  const chain: NormalizedOp[][] = [];
  for (let v = 0; v < length; v++) {
    const ops: NormalizedOp[] = [];
    let cursor = 0;
    // Mostly one-line replaces (authors on their own lines); now and then inserts, deletes and several ops.
    const count = random() < 0.8 ? 1 : 1 + Math.floor(random() * 3);
    for (let k = 0; k < count; k++) {
      const index = cursor + Math.floor(random() * (dense ? 4 : Math.max(1, (text.length - cursor) / 2)));
      if (index > text.length) break;
      const kind = random();
      const removed = kind < 0.7 ? Math.min(1, text.length - index) : kind < 0.85 ? 0 : Math.min(1 + Math.floor(random() * 2), text.length - index);
      const added = kind < 0.85 ? [`v${v} k${k}`] : [];
      ops.push({ index, count: removed, lines: added });
      cursor = index + removed;
    }
    const applied = applyOps(text, ops);
    if (!applied.ok) throw new Error(applied.message);
    text = applied.lines;
    chain.push(ops);
  }
  return chain;
}

describe(`BaseWindow (seed ${SEED}, replay with FOLIO_SEED=${SEED})`, () => {
  it("gives the very composition of the chain after every base it serves, as the head moves on", () => {
    const random = prng(SEED);
    let checked = 0;
    for (let round = 0; round < 40; round++) {
      const dense = round % 2 === 0;
      const chain = randomChain(random, 20 + Math.floor(random() * 60), 150, dense);
      // Versions are numbered from 1: chain[v - 1] is the ops of version v.
      const low = 1 + Math.floor(random() * 40);
      const split = low + 1 + Math.floor(random() * 60);
      const opsAfter = (base: number, head: number) => chain.slice(base, head);
      const window = BaseWindow.build(low, split, opsAfter(low, split));
      expect(window, `seed ${SEED}, round ${round}`).toBeDefined();
      let head = split;
      for (let query = 0; query < 30; query++) {
        // Heads only move forward; bases anywhere in the range, in any order.
        head = Math.min(chain.length, head + Math.floor(random() * 4));
        const base = low + Math.floor(random() * (split - low));
        expect(window!.serves(base, head)).toBe(true);
        expect(window!.composedAfter(base, head, opsAfter(base, head)), `seed ${SEED}, round ${round}, base ${base}, head ${head}`).toEqual(
          composeChain(opsAfter(base, head)),
        );
        checked++;
      }
      expect(window!.serves(low - 1, head)).toBe(false);
      expect(window!.serves(split, head)).toBe(false);
    }
    expect(checked).toBe(1200);
  });

  it("may be replaced only once the head has moved on by half its span past the split", () => {
    const window = BaseWindow.build(1000, 2000, Array.from({ length: 1000 }, (_, k) => [{ index: k, count: 1, lines: [`v${k}`] }]))!;
    expect(window.replaceableAt(2000)).toBe(false);
    expect(window.replaceableAt(2499)).toBe(false);
    expect(window.replaceableAt(2500)).toBe(true);
    // A narrow window still waits for the smallest lag it serves.
    const narrow = BaseWindow.build(10, 20, Array.from({ length: 10 }, () => []))!;
    expect(narrow.replaceableAt(83)).toBe(false);
    expect(narrow.replaceableAt(84)).toBe(true);
  });

  it("is not built over no versions or over more than it keeps, and refuses a base it does not serve", () => {
    expect(BaseWindow.build(5, 5, [])).toBeUndefined();
    expect(BaseWindow.build(0, MAX_WINDOW_VERSIONS + 1, Array.from({ length: MAX_WINDOW_VERSIONS + 1 }, () => []))).toBeUndefined();
    const window = BaseWindow.build(0, 2, [[{ index: 0, count: 1, lines: ["a"] }], [{ index: 1, count: 0, lines: ["b"] }]])!;
    expect(window.composedAfter(0, 2, [[{ index: 0, count: 1, lines: ["a"] }], [{ index: 1, count: 0, lines: ["b"] }]])).toEqual([
      { index: 0, count: 1, lines: ["a", "b"] },
    ]);
    expect(() => window.composedAfter(2, 3, [[]])).toThrow("does not serve base 2");
  });
});

describe(`authors whose bases all differ, through the patch pipeline (seed ${SEED}, replay with FOLIO_SEED=${SEED})`, () => {
  const t = appPerTest();

  it("answer every patch with ops since its base that rebuild the text of its version, and every repeat with the same answer", async () => {
    const random = prng(SEED);
    const AUTHORS = 90;
    const checksum = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
    const created = await t.services.documents.create({ title: "T", content: Array.from({ length: AUTHORS }, (_, n) => `line ${n}`).join("\n") });
    const texts = new Map<number, string>([[created.version, created.content]]);
    // Each author patches on the version its last answer brought: with the others' patches in
    // between, every base differs from every other and lies ~90 versions back (the window's case).
    const views = Array.from({ length: AUTHORS }, () => created.version);
    const sent: { send: () => Promise<PatchOutcome>; outcome: PatchOutcome }[] = [];
    let windowed = 0;
    for (let round = 0; round < 6; round++) {
      for (let author = 0; author < AUTHORS; author++) {
        const base = views[author]!;
        const lines = splitLines(texts.get(base)!);
        // Its own line, and now and then a line added at the end (which moves nobody's line).
        const ops = random() < 0.9 ? [{ index: author, count: 1, lines: [`a${author} r${round}`] }] : [{ index: lines.length, count: 0, lines: [`new ${author} ${round}`] }];
        const seq = round + 1;
        const send = () => t.services.patcher.patch(created.id, { baseVersion: base, checksum: checksum(texts.get(base)!), clientId: `author-${author}`, seq, ops: ops.map(toLineOperation) });
        const outcome = await send();
        sent.push({ send, outcome });
        if (outcome.kind !== "accepted") continue; // counted below: none may be refused
        const rebuilt = rebuildAfterPatch(lines, ops, outcome.opsSinceBase);
        expect(rebuilt.ok, `seed ${SEED}: round ${round}, author ${author}`).toBe(true);
        if (!rebuilt.ok) continue;
        expect(checksum(joinLines(rebuilt.lines)), `seed ${SEED}: round ${round}, author ${author}, base ${base}`).toBe(outcome.checksum);
        texts.set(outcome.version, joinLines(rebuilt.lines));
        views[author] = outcome.version;
        if (t.services.writer.cache.get(created.id, outcome.version)?.foreignOps?.windowServes(base, outcome.version - 1)) windowed++;
      }
    }
    expect(sent.filter(({ outcome }) => outcome.kind === "accepted")).toHaveLength(AUTHORS * 6);
    // Most patches were composed through the window.
    expect(windowed).toBeGreaterThan(AUTHORS * 3);
    for (const [index, { send, outcome }] of sent.entries()) {
      if (outcome.kind === "accepted") expect(await send(), `seed ${SEED}: repeat of patch ${index}`).toEqual(outcome);
    }
  });
});
