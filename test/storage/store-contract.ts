import { afterEach, beforeEach, describe } from "vitest";
import type { Store } from "../../src/storage/store.js";
import { runReadLinkContract } from "./read-links-contract.js";
import { runStoreCompactionContract } from "./store-contract-compaction.js";
import { runStoreReceiptContract } from "./store-contract-receipts.js";
import { runStoreVersionContract } from "./store-contract-versions.js";
import { runStoreWriteContract } from "./store-contract-writes.js";

export interface StoreFixture {
  store: Store;
  cleanup: () => Promise<void>;
}

/**
 * The storage contract of src/storage/store.ts, written once and run against every adapter.
 * `setup` gives a fresh, empty store for each test. Its parts, one file each, run inside this
 * suite on that store: writes, versions and texts, receipts, compaction, read links.
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

    runStoreWriteContract(() => store);
    runStoreVersionContract(() => store);
    runStoreReceiptContract(() => store);
    runStoreCompactionContract(() => store);
    runReadLinkContract(() => store);
  });
}
