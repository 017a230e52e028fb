import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/storage/store.js";
import { ID, OTHER, T0, appendVersions, head } from "../support/store-records.js";

/**
 * The patch receipts part of the storage contract: kept by document, client and seq, read ahead by a
 * write, large or referring to the versions a patch was shifted over.
 * Called inside {@link runStoreContract}'s suite (store-contract.ts), so it runs against every adapter,
 * on the fresh, empty store that suite gives each test.
 */
export function runStoreReceiptContract(current: () => Store): void {
  describe("receipts", () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it("keeps patch receipts by document, client and seq", async () => {
      const receipt = { documentId: ID, clientId: "c-1", seq: 7, requestHash: "h", version: 2, opsSinceBase: [{ index: 1, count: 0, lines: ["x"] }], createdAt: T0 };
      await appendVersions(store, ID, 1, 2);
      await store.write(ID, async (tx) => tx.putReceipt(receipt));
      expect(await store.reads(ID).receipt("c-1", 7)).toEqual(receipt);
      expect(await store.reads(ID).receipt("c-1", 8)).toBeUndefined();
      expect(await store.reads(OTHER).receipt("c-1", 7)).toBeUndefined();
    });

    it("reads the receipts a write names ahead as they are stored, whatever their client ids hold", async () => {
      const clientIds = ["it's", "back\\slash", "\u0000nul", "😀", "x'); DROP TABLE documents; --", "$1"];
      const receipts = clientIds.map((clientId, n) => ({ documentId: ID, clientId, seq: n + 1, requestHash: "h", version: 2, opsSinceBase: [], createdAt: T0 }));
      await appendVersions(store, ID, 1, 2);
      await store.write(ID, async (tx) => receipts.forEach((receipt) => tx.putReceipt(receipt)));
      const named = [...receipts.map(({ clientId, seq }) => ({ clientId, seq })), { clientId: "it's", seq: 99 }];
      const read = await store.write(ID, async (tx) => ({ named: await tx.receipts(named), other: await tx.receipts([{ clientId: "😀", seq: 4 }, { clientId: "$1", seq: 6 }]) }), { receipts: named });
      const bySeq = (list: { seq: number }[]) => [...list].sort((x, y) => x.seq - y.seq);
      expect(bySeq(read.named)).toEqual(receipts);
      expect(bySeq(read.other)).toEqual([receipts[3], receipts[5]]);
      expect(await store.reads(ID).document()).toEqual(head(ID, 2));
    });

    it("keeps a receipt whose ops are large (an author shifted over many versions) exactly, and compaction removes it", async () => {
      const opsSinceBase = Array.from({ length: 600 }, (_, n) => ({ index: n * 2, count: 1, lines: [`author ${n} run 3 seq ${n}`, "😀\u0000"] }));
      const large = { documentId: ID, clientId: "big", seq: 1, requestHash: "h", version: 2, opsSinceBase, createdAt: T0 };
      const small = { documentId: ID, clientId: "small", seq: 1, requestHash: "h", version: 2, opsSinceBase: [], createdAt: T0 + 10_000 };
      await appendVersions(store, ID, 1, 2);
      await store.write(ID, async (tx) => {
        tx.putReceipt(large);
        tx.putReceipt(small);
      });
      expect(await store.reads(ID).receipt("big", 1)).toEqual(large);
      expect(await store.reads(ID).receipts([{ clientId: "big", seq: 1 }, { clientId: "small", seq: 1 }])).toEqual(expect.arrayContaining([large, small]));
      const result = await store.compact(T0 + 5_000);
      expect(result.receipts).toBe(1);
      expect(await store.reads(ID).receipt("big", 1)).toBeUndefined();
      expect(await store.reads(ID).receipt("small", 1)).toEqual(small);
    });

    it("keeps a receipt that refers to the versions its patch was shifted over without its ops, and reads it back so", async () => {
      const referring = {
        documentId: ID,
        clientId: "far",
        seq: 3,
        requestHash: "h",
        version: 7,
        // What the service also holds in memory; the store keeps only the reference.
        opsSinceBase: [{ index: 0, count: 1, lines: ["dropped"] }],
        shiftedOver: { base: 2, through: 6 },
        createdAt: T0,
      };
      await appendVersions(store, ID, 1, 7);
      await store.write(ID, async (tx) => tx.putReceipt(referring));
      const { opsSinceBase: _dropped, ...kept } = referring;
      expect(await store.reads(ID).receipt("far", 3)).toEqual(kept);
      expect(await store.reads(ID).receipts([{ clientId: "far", seq: 3 }])).toEqual([kept]);
    });

    it("reads the receipts of a batch of keys at once, only the ones that exist", async () => {
      const receipt = (clientId: string, seq: number) => ({ documentId: ID, clientId, seq, requestHash: `h ${seq}`, version: 2, opsSinceBase: [], createdAt: T0 });
      // Keys that would collide if joined carelessly, a client id with U+0000, and more keys than one statement takes.
      const stored = [receipt("a\u00001", 2), receipt("a", 12), receipt("c\u0000", 1), ...Array.from({ length: 1500 }, (_, n) => receipt("bulk", n * 2))];
      await appendVersions(store, ID, 1, 2);
      await store.write(ID, async (tx) => {
        for (const one of stored) tx.putReceipt(one);
      });
      const keys = [
        { clientId: "a\u00001", seq: 2 },
        { clientId: "a", seq: 12 },
        { clientId: "a\u0000", seq: 12 },
        { clientId: "a", seq: 2 },
        { clientId: "c\u0000", seq: 1 },
        ...Array.from({ length: 3000 }, (_, n) => ({ clientId: "bulk", seq: n })),
      ];
      const found = await store.write(ID, (tx) => tx.receipts(keys));
      const order = (a: { clientId: string; seq: number }, b: { clientId: string; seq: number }) => a.clientId.localeCompare(b.clientId) || a.seq - b.seq;
      expect(found.sort(order)).toEqual([...stored].sort(order));
      expect(await store.write(OTHER, (tx) => tx.receipts(keys))).toEqual([]);
      expect(await store.write(ID, (tx) => tx.receipts([]))).toEqual([]);
    });
  });
}
