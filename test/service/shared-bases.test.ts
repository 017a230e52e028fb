import { createHash, randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { joinLines, splitLines } from "../../src/core/lines.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { rebuildAfterPatch } from "../../src/core/rebuild-rule.js";
import { prng } from "../support/prng.js";
import type { PatchOutcome } from "../../src/service/patch-content.js";
import { appPerTest } from "../support/app-per-test.js";

// Patches on a shared stale base, in one batch and across batches: the writer extends the
// composition an earlier patch on the same base made (service/caches/foreign-ops.ts, ForeignOps.since), or
// composes the versions up to a later base with the composition kept for it (ForeignOps.fromNearest),
// instead of composing every version since the base. Whatever it reused, each answer must rebuild, by the
// rule every client applies, exactly the text whose checksum it carries.

const SEED = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : randomInt(2 ** 31);
const LINES = 40;
const checksum = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

describe(`patches on shared stale bases (seed ${SEED}, replay with FOLIO_SEED=${SEED})`, () => {
  const t = appPerTest();

  it("answer every patch with ops since its base that rebuild the text of its version, in one batch and across batches", async () => {
    const random = prng(SEED);
    const created = await t.services.documents.create({ title: "T", content: Array.from({ length: LINES }, (_, n) => `line ${n}`).join("\n") });
    const texts = new Map<number, string>([[created.version, created.content]]);
    let seq = 0;
    let checked = 0;
    const sent: { send: () => ReturnType<typeof t.services.patcher.patch>; outcome: PatchOutcome; clientId: string }[] = [];
    for (let round = 0; round < 30; round++) {
      // A few bases shared by the patches of this round: each round is one batch or several.
      const versions = [...texts.keys()].sort((a, b) => b - a);
      // The third, a little older than the second, finds its composition from the one kept for a later base.
      const bases = [versions[0]!, versions[Math.min(versions.length - 1, 1 + Math.floor(random() * 6))]!, versions[Math.min(versions.length - 1, 4 + Math.floor(random() * 12))]!];
      const together = random() < 0.5;
      const patches = Array.from({ length: 2 + Math.floor(random() * 4) }, () => {
        const base = bases[Math.floor(random() * bases.length)]!;
        const length = splitLines(texts.get(base)!).length;
        const line = Math.floor(random() * length);
        const kind = random();
        const fresh = [`r${round} s${++seq}`];
        // Replaces, inserts and deletes: an insert composed twice would show, a replace would not.
        const ops: NormalizedOp[] = [kind < 0.4 ? { index: line, count: 1, lines: fresh } : kind < 0.75 || length < 10 ? { index: line, count: 0, lines: fresh } : { index: line, count: 1, lines: [] }];
        return { base, ops, seq };
      });
      const send = (patch: (typeof patches)[number]) =>
        t.services.patcher.patch(created.id, {
          baseVersion: patch.base,
          checksum: checksum(texts.get(patch.base)!),
          clientId: `client-${patch.seq}`,
          seq: 1,
          ops: patch.ops.map(toLineOperation),
        });
      const outcomes = together ? await Promise.all(patches.map(send)) : await patches.reduce<Promise<Awaited<ReturnType<typeof send>>[]>>(async (done, patch) => [...(await done), await send(patch)], Promise.resolve([]));
      outcomes.forEach((outcome, index) => {
        const patch = patches[index]!;
        sent.push({ send: () => send(patch), outcome, clientId: `client-${patch.seq}` });
        if (outcome.kind !== "accepted") return; // two patches of one line at once: a true conflict
        const rebuilt = rebuildAfterPatch(splitLines(texts.get(patch.base)!), patch.ops, outcome.opsSinceBase);
        expect(rebuilt.ok, `seed ${SEED}: round ${round}, patch ${index}`).toBe(true);
        if (!rebuilt.ok) return;
        expect(checksum(joinLines(rebuilt.lines)), `seed ${SEED}: round ${round}, patch ${index} on base ${patch.base}`).toBe(outcome.checksum);
        texts.set(outcome.version, joinLines(rebuilt.lines));
        checked++;
      });
    }
    const head = await t.services.documents.get(created.id);
    expect(texts.get(head.version)).toBe(head.content);
    expect(checked).toBeGreaterThan(60);

    // Every repeat gets the very answer its patch got, also where the receipt kept only the versions
    // the patch was shifted over and the answer is composed again from them (patch-content.ts, shiftedAgain).
    let referring = 0;
    for (const [index, { send, outcome, clientId }] of sent.entries()) {
      if (outcome.kind !== "accepted") continue;
      if ((await t.store.reads(created.id).receipt(clientId, 1))?.shiftedOver) referring++;
      expect(await send(), `seed ${SEED}: repeat of patch ${index}`).toEqual(outcome);
    }
    expect(referring).toBeGreaterThan(30);
  });
});
