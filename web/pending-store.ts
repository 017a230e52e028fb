/**
 * Unsent edits kept in this browser: the client's PendingStore (docs/editing-protocol.md,
 * "Persistence") on localStorage, one record per document and page (its clientId), so that a reload,
 * a closed tab, a crash or an offline spell loses no typing, and a reopened page resends the patch
 * in flight with the same clientId and seq. A record is the client's snapshot under
 * `folio.pending.<document>.<clientId>`, and each entry appended since (one per keystroke, send or
 * answer) under `folio.log.<document>.<clientId>.<n>`: a keystroke writes its own small entry, never
 * the document.
 *
 * Why localStorage and not IndexedDB: the client keeps every edit without waiting (it cannot hold a
 * keystroke), and the page may be closed at any moment after. A localStorage write is done when
 * setItem returns, in order, and then belongs to the browser, not to the page; an IndexedDB
 * transaction still running when the page goes away may be lost, and two in flight need ordering.
 * The price is the quota (about 5 MB per origin): a write that does not fit is reported, and the
 * page then says the edits are not kept (docs/editor.md, "What it does").
 *
 * Each open page holds a Web Lock named after its clientId. An entry whose lock nobody holds belongs
 * to a page that is gone: the next page of that document adopts it, lock and clientId included, so
 * two pages never send with one clientId. Without Web Locks (a page served over plain HTTP to
 * another host) a heartbeat in localStorage stands in for the lock (ownership.ts).
 */
import { isEarlierRecord, type EarlierPending, type PendingStore, type StoredPending } from "../src/client/index.js";
import { claim, owned } from "./ownership.js";

const PREFIX = "folio.pending.";
const LOG_PREFIX = "folio.log.";
/** Entries read back at most; the client compacts long before. */
const MAX_ENTRIES = 100_000;

/** What the page can say about the unsent edits: none, kept in this browser, or not kept (storage refused). */
export type Keeping = "none" | "kept" | "not-kept";

export interface PageStore extends PendingStore {
  /** The clientId this page sends with: the adopted entry's, or a fresh one. */
  readonly clientId: string;
  /** Unsent edits of this document from other pages that are gone, left for the next reload. */
  readonly waiting: number;
  readonly keeping: Keeping;
  onKeeping(listener: (keeping: Keeping) => void): void;
}

interface Entry {
  savedAt: number;
  pending: Omit<StoredPending, "entries"> | EarlierPending;
  /** The number of the first entry appended after the snapshot. */
  log: number;
}

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

function parse(raw: string | null): Entry | undefined {
  try {
    const entry = JSON.parse(raw ?? "null") as Entry | null;
    const pending = entry?.pending;
    if (typeof entry?.savedAt !== "number" || typeof pending !== "object" || pending === null || typeof pending.clientId !== "string") return undefined;
    // A record of the earlier format (a whole local text) is taken over as it is, once.
    if (isEarlierRecord(pending)) return { ...entry, log: 0 };
    const valid = Number.isSafeInteger(entry.log) && typeof pending.snapshot === "string" && typeof pending.unsent === "boolean" && Number.isSafeInteger(pending.nextSeq);
    return valid ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a record holds unsent edits: an earlier-format one always does. */
function holdsUnsent(pending: Entry["pending"]): boolean {
  return isEarlierRecord(pending) || pending.unsent;
}

/** The entries of `documentId` in this browser, newest first. */
function entriesOf(local: Storage, documentId: string): Array<{ key: string; entry: Entry }> {
  const found: Array<{ key: string; entry: Entry }> = [];
  for (let index = 0; index < local.length; index++) {
    const key = local.key(index);
    if (!key?.startsWith(`${PREFIX}${documentId}.`)) continue;
    const entry = parse(local.getItem(key));
    if (entry) found.push({ key, entry });
  }
  return found.sort((a, b) => b.entry.savedAt - a.entry.savedAt);
}

/** This tab's last page of a document, in sessionStorage: a reload of it adopts that page's entry. */
function tabKey(documentId: string): string {
  return `folio.page.${documentId}`;
}

function previousInTab(documentId: string): string | null {
  try {
    return window.sessionStorage.getItem(tabKey(documentId));
  } catch {
    return null;
  }
}

/**
 * The entry this page takes over: this tab's previous page's (a reload), waited for up to three
 * seconds since that page may not have let go of its clientId yet; else the newest one no living
 * page owns (a closed tab, a crash). Entries of pages still open stay theirs.
 */
async function adopt(entries: ReadonlyArray<{ entry: Entry }>, documentId: string): Promise<Entry | undefined> {
  const previous = previousInTab(documentId);
  const own = entries.find(({ entry }) => entry.pending.clientId === previous);
  if (own && (await claim(own.entry.pending.clientId, 3000))) return own.entry;
  const others = entries.filter(({ entry }) => entry !== own?.entry);
  for (const { entry } of others) {
    if (await claim(entry.pending.clientId, 0)) return entry;
  }
  // A tab closed a moment ago may still hold its clientId: the newest entry gets half a second.
  const newest = others[0]?.entry;
  return newest && (await claim(newest.pending.clientId, 500)) ? newest : undefined;
}

/** The store of one page of `documentId`: adopts the entry of a page that is gone, else claims a fresh clientId. */
export async function openPendingStore(documentId: string, freshClientId: () => string): Promise<PageStore> {
  const local = storage();
  const entries = local ? entriesOf(local, documentId) : [];
  const adopted = await adopt(entries, documentId);
  const clientId = adopted?.pending.clientId ?? freshClientId();
  if (!adopted) await claim(clientId, 0);
  try {
    window.sessionStorage.setItem(tabKey(documentId), clientId);
  } catch {
    // A reload then adopts its entry as any other page's: once nobody holds it.
  }
  let waiting = 0;
  for (const { entry } of entries) {
    if (entry !== adopted && (holdsUnsent(entry.pending) || logOf(local, documentId, entry).length > 0) && !(await owned(entry.pending.clientId))) waiting++;
  }
  const key = `${PREFIX}${documentId}.${clientId}`;
  const listeners: Array<(keeping: Keeping) => void> = [];
  let keeping: Keeping = adopted ? "kept" : "none";
  const setKeeping = (next: Keeping) => {
    if (next === keeping) return;
    keeping = next;
    for (const listener of listeners) listener(next);
  };
  const loaded = adopted && local ? (isEarlierRecord(adopted.pending) ? adopted.pending : { ...adopted.pending, entries: logOf(local, documentId, adopted) }) : undefined;
  // The entries after the snapshot are numbered on from the adopted record's.
  let first = adopted ? adopted.log : 0;
  let next = first + (loaded && !isEarlierRecord(loaded) ? loaded.entries.length : 0);
  /** Runs a write; a refusal (quota, private mode) leaves the edits in this page only, and the page says so. */
  const kept = (write: (storage: Storage) => Keeping) => {
    try {
      if (!local) throw new Error("this browser keeps no local storage for the page");
      setKeeping(write(local));
    } catch {
      setKeeping("not-kept");
    }
  };

  return {
    clientId,
    waiting,
    get keeping() {
      return keeping;
    },
    onKeeping: (listener) => void listeners.push(listener),
    load: (id) => (id === documentId ? loaded : undefined),
    save(id, record) {
      if (id !== documentId) return;
      kept((storage) => {
        if (record === undefined) storage.removeItem(key);
        else storage.setItem(key, JSON.stringify({ savedAt: Date.now(), pending: { clientId: record.clientId, unsent: record.unsent, nextSeq: record.nextSeq, snapshot: record.snapshot }, log: next } satisfies Entry));
        // The entries the snapshot holds now are dropped (a crash before this line leaves them unread).
        for (let n = first; n < next; n++) storage.removeItem(logKey(documentId, clientId, n));
        first = next;
        return record?.unsent ? "kept" : "none";
      });
    },
    append(id, entry, unconfirmed) {
      if (id !== documentId) return;
      kept((storage) => {
        storage.setItem(logKey(documentId, clientId, next), entry);
        next++;
        return unconfirmed ? "kept" : "none";
      });
    },
  };
}

function logKey(documentId: string, clientId: string, n: number): string {
  return `${LOG_PREFIX}${documentId}.${clientId}.${n}`;
}

/** The entries appended after a record's snapshot, in order. */
function logOf(local: Storage | undefined, documentId: string, entry: Entry): string[] {
  const entries: string[] = [];
  for (let n = entry.log; local && entries.length < MAX_ENTRIES; n++) {
    const value = local.getItem(logKey(documentId, entry.pending.clientId, n));
    if (value === null) break;
    entries.push(value);
  }
  return entries;
}
