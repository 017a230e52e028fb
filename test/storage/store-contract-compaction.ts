import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/storage/store.js";
import { ID, OTHER, T0, appendVersions, version } from "../support/store-records.js";

/**
 * The compaction part of the storage contract: what it clears and keeps (milestones, the head, live
 * receipts and the versions they refer to), and which documents need a snapshot first.
 * Called inside {@link runStoreContract}'s suite (store-contract.ts), so it runs against every adapter,
 * on the fresh, empty store that suite gives each test.
 */
export function runStoreCompactionContract(current: () => Store): void {
  describe("compaction", () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it("keeps the ops of the versions a receipt refers to through compaction, and clears them in the run after the one that deleted it", async () => {
      await appendVersions(store, ID, 1, 12, (n) => ({ createdAt: T0 + n * 1000 }));
      await store.write(ID, async (tx) => {
        tx.putSnapshot({ version: 11, text: "s11" });
        // Live at the first compaction: its patch was shifted over versions 4..6, old as they are.
        tx.putReceipt({ documentId: ID, clientId: "live", seq: 1, requestHash: "h", version: 7, shiftedOver: { base: 3, through: 6 }, createdAt: T0 + 20_000 });
        // Expired at the first compaction, which still keeps its version 8 and then deletes it.
        tx.putReceipt({ documentId: ID, clientId: "gone", seq: 1, requestHash: "h", version: 9, shiftedOver: { base: 7, through: 8 }, createdAt: T0 + 500 });
      });
      const cleared = async () => (await store.reads(ID).versions(1, 12)).filter((v) => v.ops === null).map((v) => v.version);

      expect(await store.compact(T0 + 10_500)).toEqual({ versions: 5, receipts: 1, ran: true });
      expect(await cleared()).toEqual([2, 3, 7, 9, 10]);
      expect(await store.reads(ID).receipt("live", 1)).toBeDefined();
      expect(await store.reads(ID).receipt("gone", 1)).toBeUndefined();

      // "live" has expired too: this run clears version 8 and deletes it, the next clears its versions.
      expect(await store.compact(T0 + 30_000)).toEqual({ versions: 1, receipts: 1, ran: true });
      expect(await cleared()).toEqual([2, 3, 7, 8, 9, 10]);
      expect(await store.compact(T0 + 30_000)).toEqual({ versions: 3, receipts: 0, ran: true });
      expect(await cleared()).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it("compacts old sync versions below the snapshot, keeping milestones, the head and new receipts", async () => {
      await appendVersions(store, ID, 1, 6, (n) => ({ createdAt: T0 + n * 1000, milestone: n === 1 || n === 3, text: n === 1 || n === 3 ? `m${n}` : null }));
      await store.write(ID, async (tx) => {
        tx.putSnapshot({ version: 5, text: "s5" });
        tx.putReceipt({ documentId: ID, clientId: "old", seq: 1, requestHash: "h", version: 2, opsSinceBase: [], createdAt: T0 });
        tx.putReceipt({ documentId: ID, clientId: "new", seq: 1, requestHash: "h", version: 6, opsSinceBase: [], createdAt: T0 + 10_000 });
      });
      expect(await store.documentsNeedingSnapshot(T0 + 100_000)).toEqual([ID]);
      const result = await store.compact(T0 + 5_500);
      expect(result).toEqual({ versions: 2, receipts: 1, ran: true });
      const versions = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => store.reads(ID).version(n)));
      const ops = versions.map((v) => [v?.version, v?.ops === null, v?.text]);
      expect(ops).toEqual([
        [1, false, "m1"],
        [2, true, null],
        [3, false, "m3"],
        [4, true, null],
        [5, false, null],
        [6, false, null],
      ]);
      expect(await store.reads(ID).receipt("old", 1)).toBeUndefined();
      expect(await store.reads(ID).receipt("new", 1)).toBeDefined();
      expect((await store.reads(ID).version(2))?.checksum).toBe(version(ID, 2).checksum);
    });

    it("clears the ops and the text of a compacted sync version, and keeps a milestone's whole", async () => {
      await appendVersions(store, ID, 1, 4, (n) => ({ createdAt: T0 + n, milestone: n === 1, text: `t${n}` }));
      await store.write(ID, async (tx) => tx.putSnapshot({ version: 4, text: "t4" }));
      expect(await store.compact(T0 + 100)).toEqual({ versions: 2, receipts: 0, ran: true });
      const kept = await Promise.all([1, 2, 3, 4].map((n) => store.reads(ID).version(n)));
      expect(kept.map((v) => [v?.version, v?.ops === null, v?.text])).toEqual([
        [1, false, "t1"],
        [2, true, null],
        [3, true, null],
        [4, false, "t4"],
      ]);
    });

    it("reports documents whose old ops compaction cannot drop before a new snapshot", async () => {
      await appendVersions(store, ID, 1, 3, (n) => ({ createdAt: T0 + n }));
      await appendVersions(store, OTHER, 1, 1);
      expect(await store.documentsNeedingSnapshot(T0 + 100)).toEqual([ID]);
      await store.write(ID, async (tx) => tx.putSnapshot({ version: 3, text: "s3" }));
      expect(await store.documentsNeedingSnapshot(T0 + 100)).toEqual([]);
    });
  });
}
