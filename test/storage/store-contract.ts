import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DocumentTransaction, Store, VersionRecord } from "../../src/storage/store.js";
import { runReadLinkContract } from "./read-links-contract.js";
import { T0, head, version } from "../support/store-records.js";

export interface StoreFixture {
  store: Store;
  cleanup: () => Promise<void>;
}

const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";
const OTHER = "8c1d2e3f-4a5b-4c6d-8e7f-901234567890";
/** Appends versions from..to of `id` in one write, the head following. */
async function appendVersions(store: Store, id: string, from: number, to: number, extra: (n: number) => Partial<VersionRecord> = () => ({})) {
  await store.write(id, async (tx) => {
    for (let n = from; n <= to; n++) {
      tx.putDocument(head(id, n));
      tx.appendVersion(version(id, n, extra(n)));
    }
  });
}

/**
 * The storage contract of src/storage/store.ts, written once and run against every adapter.
 * `setup` gives a fresh, empty store for each test.
 */
export function runStoreContract(name: string, setup: () => Promise<StoreFixture>): void {
  describe(`store contract: ${name}`, () => {
    let fixture: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fixture = await setup();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    runReadLinkContract(() => store);

    it("knows nothing of an id that never existed", async () => {
      expect(await store.reads(ID).document()).toBeUndefined();
      expect(await store.reads(ID).version(1)).toBeUndefined();
      expect(await store.reads(ID).versions(0, 10)).toEqual([]);
      expect(await store.reads(ID).milestones()).toEqual([]);
      expect(await store.reads(ID).snapshot()).toBeUndefined();
      expect(await store.reads(ID).fullTextAtOrBefore(5)).toBeUndefined();
      expect(await store.reads(ID).receipt("client", 1)).toBeUndefined();
      expect(await store.listDocuments()).toEqual([]);
    });

    it("answers a ping while open, with its listener (where it has one) connected, and refuses it once closed", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
      const stats = store.stats();
      expect(["sqlite", "postgres"]).toContain(stats.kind);
      if (stats.kind === "postgres") expect(stats.listener).toEqual({ connected: true, reconnects: 0 });
      else expect(stats.listener).toBeUndefined();
      await store.close();
      await expect(store.ping()).rejects.toThrow(/closed/);
    });

    it("reads back exactly what a write committed, optional fields left out", async () => {
      const withSender = version(ID, 2, { clientId: "c-1", displayName: "Ada" });
      await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 2));
        tx.appendVersion(version(ID, 1));
        tx.appendVersion(withSender);
      });
      expect(await store.reads(ID).document()).toEqual(head(ID, 2));
      expect(await store.reads(ID).version(1)).toEqual(version(ID, 1));
      expect(await store.reads(ID).version(2)).toEqual(withSender);
      expect(Object.keys((await store.reads(ID).version(1))!)).not.toContain("clientId");
    });

    it("returns the work's result after the commit", async () => {
      const result = await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 1));
        tx.appendVersion(version(ID, 1));
        return "done";
      });
      expect(result).toBe("done");
      expect((await store.reads(ID).document())?.version).toBe(1);
    });

    it("writes nothing when the work throws", async () => {
      await expect(
        store.write(ID, async (tx) => {
          tx.putDocument(head(ID, 1));
          tx.appendVersion(version(ID, 1));
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      expect(await store.reads(ID).document()).toBeUndefined();
      expect(await store.reads(ID).version(1)).toBeUndefined();
    });

    it("refuses a version that is not the next one, and writes nothing of that work", async () => {
      await appendVersions(store, ID, 1, 2);
      await expect(
        store.write(ID, async (tx) => {
          tx.putDocument(head(ID, 4, { title: "Skipped" }));
          tx.appendVersion(version(ID, 4));
        }),
      ).rejects.toThrow();
      await expect(
        store.write(ID, async (tx) => {
          tx.appendVersion(version(ID, 2));
        }),
      ).rejects.toThrow();
      expect(await store.reads(ID).document()).toEqual(head(ID, 2));
      expect((await store.reads(ID).versions(0, 10)).map((v) => v.version)).toEqual([1, 2]);
    });

    it("refuses staging once the write is over, for another document, or after a refused version the work swallowed", async () => {
      let leaked: DocumentTransaction | undefined;
      await appendVersions(store, ID, 1, 1);
      await store.write(ID, async (tx) => {
        leaked = tx;
      });
      expect(() => leaked!.putSnapshot({ version: 1, text: "late" })).toThrow(`the write transaction of document ${ID} is over`);
      await expect(store.write(ID, async (tx) => tx.putDocument(head(OTHER, 1)))).rejects.toThrow(
        `putDocument for document ${OTHER} inside the write of document ${ID}`,
      );
      await expect(
        store.write(ID, async (tx) => {
          tx.appendVersion(version(ID, 2));
          try {
            tx.appendVersion(version(ID, 4));
          } catch {
            // swallowed: the write must fail all the same
          }
        }),
      ).rejects.toThrow(`appendVersion(4) on document ${ID}: the next version is 3`);
      await expect(store.write(ID, async (tx) => tx.appendVersion(version(ID, 3)))).rejects.toThrow(
        `appendVersion(3) on document ${ID}: the next version is 2`,
      );
      expect(await store.reads(ID).snapshot()).toBeUndefined();
      expect((await store.reads(ID).versions(0, 10)).map((v) => v.version)).toEqual([1]);
    });

    it("reads a range of versions without their texts", async () => {
      await appendVersions(store, ID, 1, 2, (n) => ({ milestone: true, text: `text ${n}` }));
      const { text: _text, ...summary } = version(ID, 2, { milestone: true, text: "text 2" });
      expect(await store.reads(ID).versions(1, 2)).toEqual([summary]);
      expect(await store.write(ID, async (tx) => tx.versions(1, 2))).toEqual([summary]);
    });

    it("lists versions in (after, upTo] oldest first and milestones alone", async () => {
      await appendVersions(store, ID, 1, 6, (n) => ({ milestone: n % 3 === 0 || n === 1, text: n % 3 === 0 || n === 1 ? `text ${n}` : null }));
      expect((await store.reads(ID).versions(2, 5)).map((v) => v.version)).toEqual([3, 4, 5]);
      expect((await store.reads(ID).milestones()).map((v) => [v.version, v.text])).toEqual([
        [1, "text 1"],
        [3, "text 3"],
        [6, "text 6"],
      ]);
    });

    it("turns a version into a milestone that keeps its text", async () => {
      await appendVersions(store, ID, 1, 3);
      await store.write(ID, async (tx) => tx.markMilestone(2, "the text at 2"));
      expect(await store.reads(ID).version(2)).toEqual(version(ID, 2, { milestone: true, text: "the text at 2" }));
    });

    it("finds the newest full text at or before a version, snapshot or milestone", async () => {
      await appendVersions(store, ID, 1, 8, (n) => ({ milestone: n === 1 || n === 6, text: n === 1 || n === 6 ? `milestone ${n}` : null }));
      await store.write(ID, async (tx) => tx.putSnapshot({ version: 4, text: "snapshot 4" }));
      expect(await store.reads(ID).snapshot()).toEqual({ version: 4, text: "snapshot 4" });
      expect(await store.reads(ID).fullTextAtOrBefore(3)).toEqual({ version: 1, text: "milestone 1" });
      expect(await store.reads(ID).fullTextAtOrBefore(5)).toEqual({ version: 4, text: "snapshot 4" });
      expect(await store.reads(ID).fullTextAtOrBefore(8)).toEqual({ version: 6, text: "milestone 6" });
      await store.write(ID, async (tx) => tx.putSnapshot({ version: 7, text: "snapshot 7" }));
      expect(await store.reads(ID).fullTextAtOrBefore(8)).toEqual({ version: 7, text: "snapshot 7" });
      expect(await store.reads(ID).fullTextAtOrBefore(5)).toEqual({ version: 1, text: "milestone 1" });
    });

    it("round-trips any well-formed text exactly, U+0000 and astral characters included", async () => {
      const text = "a\u0000b\r\nc\u2028d 😀 \u{10FFFF}\n\n\t end";
      const title = "T\u0000itle 😀";
      await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 1, { title }));
        tx.appendVersion(version(ID, 1, { title, text, ops: [{ index: 0, count: 1, lines: ["x\u0000y", "😀"] }], clientId: "c\u0000", displayName: "D\u0000 😀" }));
        tx.putSnapshot({ version: 1, text });
      });
      const stored = await store.reads(ID).version(1);
      expect(stored?.text).toBe(text);
      expect(stored?.title).toBe(title);
      expect(stored?.ops).toEqual([{ index: 0, count: 1, lines: ["x\u0000y", "😀"] }]);
      expect(stored?.clientId).toBe("c\u0000");
      expect(stored?.displayName).toBe("D\u0000 😀");
      expect((await store.reads(ID).document())?.title).toBe(title);
      expect(await store.reads(ID).snapshot()).toEqual({ version: 1, text });
      await store.write(OTHER, async (tx) => {
        tx.putDocument(head(OTHER, 1));
        tx.appendVersion(version(OTHER, 1, { text: "" }));
      });
      expect((await store.reads(OTHER).version(1))?.text).toBe("");
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

    it("applies a milestone mark on a version appended in the same write, and refuses a mark on a missing version", async () => {
      await appendVersions(store, ID, 1, 2);
      await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 3));
        tx.appendVersion(version(ID, 3));
        tx.markMilestone(3, "the text at 3");
        tx.markMilestone(2, "the text at 2");
      });
      expect(await store.reads(ID).version(2)).toEqual(version(ID, 2, { milestone: true, text: "the text at 2" }));
      expect(await store.reads(ID).version(3)).toEqual(version(ID, 3, { milestone: true, text: "the text at 3" }));
      await expect(
        store.write(ID, async (tx) => {
          tx.putDocument(head(ID, 4));
          tx.appendVersion(version(ID, 4));
          tx.markMilestone(9, "no such version");
        }),
      ).rejects.toThrow();
      expect(await store.reads(ID).document()).toEqual(head(ID, 3));
      expect(await store.reads(ID).version(4)).toBeUndefined();
    });

    it("commits a write of thousands of versions and receipts whole, the last head and snapshot winning", async () => {
      await store.write(ID, async (tx) => {
        for (let n = 1; n <= 3000; n++) {
          tx.putDocument(head(ID, n));
          tx.appendVersion(version(ID, n));
          tx.putReceipt({ documentId: ID, clientId: "bulk", seq: n, requestHash: "h", version: n, opsSinceBase: [], createdAt: T0 });
          if (n % 1000 === 0) tx.putSnapshot({ version: n, text: `snapshot ${n}` });
        }
      });
      expect(await store.reads(ID).document()).toEqual(head(ID, 3000));
      expect((await store.reads(ID).versions(0, 5000)).map((v) => v.version)).toEqual(Array.from({ length: 3000 }, (_, n) => n + 1));
      expect(await store.reads(ID).snapshot()).toEqual({ version: 3000, text: "snapshot 3000" });
      expect(await store.reads(ID).receipt("bulk", 2999)).toEqual({ documentId: ID, clientId: "bulk", seq: 2999, requestHash: "h", version: 2999, opsSinceBase: [], createdAt: T0 });
    });

    it("lets the work read the committed state and its own earlier reads stay valid", async () => {
      await appendVersions(store, ID, 1, 3);
      const seen = await store.write(ID, async (tx) => {
        const document = await tx.document();
        const versions = await tx.versions(1, 3);
        const one = await tx.version(2);
        return { version: document?.version, versions: versions.map((v) => v.version), one: one?.version };
      });
      expect(seen).toEqual({ version: 3, versions: [2, 3], one: 2 });
    });

    it("lists existing documents oldest first, deleted ones left out", async () => {
      const ids = ["00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"];
      await Promise.all(
        ids.map((id, i) =>
          store.write(id, async (tx) => {
            tx.putDocument(head(id, 1, { createdAt: T0 + (i === 2 ? 0 : i * 10), deleted: i === 1 }));
            tx.appendVersion(version(id, 1));
          }),
        ),
      );
      expect((await store.listDocuments()).map((d) => d.id)).toEqual([ids[2], ids[0]]);
    });

    it("serializes concurrent writers of one document: versions stay dense", async () => {
      const writers = 40;
      await Promise.all(
        Array.from({ length: writers }, () =>
          store.write(ID, async (tx) => {
            const current = (await tx.document())?.version ?? 0;
            await new Promise((resolve) => setImmediate(resolve));
            tx.putDocument(head(ID, current + 1));
            tx.appendVersion(version(ID, current + 1));
          }),
        ),
      );
      expect((await store.reads(ID).document())?.version).toBe(writers);
      expect((await store.reads(ID).versions(0, 1000)).map((v) => v.version)).toEqual(Array.from({ length: writers }, (_, i) => i + 1));
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

    it("counts list failures, locks at the limit, ignores failures while locked and resets on success", async () => {
      expect(await store.getListLock()).toEqual({ failures: 0, lockedUntil: 0 });
      expect(await store.recordListFailure(T0, 3, 60_000)).toEqual({ failures: 1, lockedUntil: 0 });
      expect(await store.recordListFailure(T0, 3, 60_000)).toEqual({ failures: 2, lockedUntil: 0 });
      expect(await store.recordListFailure(T0 + 1, 3, 60_000)).toEqual({ failures: 0, lockedUntil: T0 + 60_001 });
      expect(await store.recordListFailure(T0 + 2, 3, 60_000)).toEqual({ failures: 0, lockedUntil: T0 + 60_001 });
      expect(await store.recordListFailure(T0 + 60_001, 3, 60_000)).toEqual({ failures: 1, lockedUntil: T0 + 60_001 });
      await store.resetListFailures();
      expect(await store.getListLock()).toEqual({ failures: 0, lockedUntil: T0 + 60_001 });
    });

    it("finishes in-flight writes before closing, and closing twice is harmless", async () => {
      let committed = false;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const pending = store
        .write(ID, async (tx) => {
          entered();
          await released;
          tx.putDocument(head(ID, 1));
          tx.appendVersion(version(ID, 1));
          return "written";
        })
        .then((value) => {
          committed = true;
          return value;
        });
      await inside;
      // close() must wait for the write, which is still inside its work function.
      const closing = store.close();
      release();
      await closing;
      expect(committed).toBe(true);
      expect(await pending).toBe("written");
      await store.close();
    });
  });
}
