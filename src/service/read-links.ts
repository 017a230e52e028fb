import { randomUUID } from "node:crypto";
import type { Store } from "../storage/store.js";
import type { ChangeFeed, ChangeFeedView } from "./change-feed.js";
import type { Clock } from "./clock.js";
import { documentNotFound, type DocumentService, type DocumentView, type HistoryAt, type HistoryEntryView } from "./documents.js";
import type { PresenceEntry, Presence } from "./presence.js";
import type { PresenceListener } from "./presence-watchers.js";
import { ServiceError } from "./service-error.js";

/** A document as a read-only link shows it: its own id replaced by the read id. */
export interface ReadOnlyDocumentView extends Omit<DocumentView, "id"> {
  readId: string;
}

export interface ReadLinksOptions {
  store: Store;
  documents: DocumentService;
  feed: ChangeFeed;
  presence: Presence;
  clock: Clock;
}

/**
 * Read-only links (docs/sharing.md): making, rotating and revoking a document's link, and reading a
 * document, its history and its feed through one. The reads are the document's own use cases,
 * keyed by the document's id inside; what leaves here carries the read id instead, and no error
 * detail names the document's id. The link is looked up in the store on every request (and once
 * more before a feed answer is delivered), never cached, so a revoked link stops everywhere at once.
 */
export class ReadLinks {
  /** Link checks of feed answers in flight, by answer and read id (see {@link stillLinked}). */
  private readonly checks = new WeakMap<ChangeFeedView, Map<string, Promise<string | undefined>>>();

  constructor(private readonly options: ReadLinksOptions) {}

  /** A new random link for an existing document; the earlier one stops working. 404 for an unknown or deleted document. */
  async create(documentId: string): Promise<string> {
    const readId = randomUUID();
    if (!(await this.options.store.readLinks.replace(documentId, readId, this.options.clock.now()))) throw documentNotFound(documentId);
    return readId;
  }

  /** The document's current link (a deleted document keeps it); 404 when it has none. */
  async get(documentId: string): Promise<string> {
    const readId = await this.options.store.readLinks.readIdOf(documentId);
    if (readId === undefined) throw await this.noLinkOf(documentId);
    return readId;
  }

  /** Stops the document's link (a deleted document's too); 404 when it has none. */
  async revoke(documentId: string): Promise<void> {
    if (!(await this.options.store.readLinks.remove(documentId))) throw await this.noLinkOf(documentId);
  }

  /** The document behind `readId`; 404 for an unknown or revoked link, and while the document is deleted. */
  async document(readId: string): Promise<ReadOnlyDocumentView> {
    const documentId = await this.documentOf(readId);
    const { id: _id, ...fields } = await this.hidingId(readId, documentId, () => this.options.documents.get(documentId));
    return { readId, ...fields };
  }

  /** The document's history (deleted documents included), each entry's `documentId` the read id. */
  async history(readId: string): Promise<HistoryAt> {
    const documentId = await this.documentOf(readId);
    const history = await this.hidingId(readId, documentId, () => this.options.documents.history(documentId));
    const asRead = (entry: HistoryEntryView): HistoryEntryView => ({ ...entry, documentId: readId });
    return {
      version: history.version,
      milestonesAfter: async (after, limit) => (await this.hidingId(readId, documentId, () => history.milestonesAfter(after, limit))).map(asRead),
      newest: async () => {
        const newest = await this.hidingId(readId, documentId, () => history.newest());
        return newest && asRead(newest);
      },
    };
  }

  /** The document's title and text, or a version's, for an export; 404 while the document is deleted. */
  async snapshot(readId: string, version?: number): Promise<{ title: string; content: string; version: number }> {
    const documentId = await this.documentOf(readId);
    return this.hidingId(readId, documentId, () => this.options.documents.snapshot(documentId, version));
  }

  /**
   * The document's change feed: the very answer its own feed gives (one waiter among the
   * document's, sharing its reads and wake-ups). A feed answer carries no document id. A link
   * revoked or replaced while the request waited delivers nothing more: 404. `signal` ends the wait
   * at once (`undefined`), as it does the feed's.
   */
  async changes(readId: string, since: number, waitSeconds: number, signal?: AbortSignal): Promise<ChangeFeedView | undefined> {
    const documentId = await this.documentOf(readId);
    const answer = await this.hidingId(readId, documentId, () => this.options.feed.next(documentId, since, { waitSeconds, signal }));
    if (answer && (await this.stillLinked(answer, readId)) !== documentId) throw noReadLink(readId);
    return answer;
  }

  /** Who is at the document now, editors and viewers: the list GET /documents/{id}/presence gives (it names no document). */
  async presence(readId: string): Promise<PresenceEntry[]> {
    const documentId = await this.documentOf(readId);
    return this.hidingId(readId, documentId, () => this.options.presence.list(documentId));
  }

  /** Announces a viewer at the document (marked `viewer`: it can neither replace nor remove an editor's entry). */
  async announce(readId: string, clientId: string, input: { displayName?: string; state: Record<string, unknown> }): Promise<void> {
    const documentId = await this.documentOf(readId);
    await this.hidingId(readId, documentId, () => this.options.presence.set(documentId, "viewer", clientId, input));
  }

  /**
   * Hears the presence list of the document behind `readId` (an event stream's, opened after its first
   * answer found the link); nothing when the link is gone meanwhile. The returned function stops it.
   */
  watchPresence(readId: string, listener: PresenceListener): () => void {
    let stop: (() => void) | undefined;
    let stopped = false;
    this.options.store.readLinks.documentOf(readId).then(
      (documentId) => {
        if (!stopped && documentId !== undefined) stop = this.options.presence.watch(documentId, listener);
      },
      () => undefined,
    );
    return () => {
      stopped = true;
      stop?.();
    };
  }

  /** A viewer's goodbye; idempotent. */
  async leave(readId: string, clientId: string): Promise<void> {
    const documentId = await this.documentOf(readId);
    await this.hidingId(readId, documentId, () => this.options.presence.remove(documentId, "viewer", clientId));
  }

  private async documentOf(readId: string): Promise<string> {
    const documentId = await this.options.store.readLinks.documentOf(readId);
    if (documentId === undefined) throw noReadLink(readId);
    return documentId;
  }

  // Waiters woken by one commit get one answer object in one run of the microtask queue, with no
  // I/O between them, so the check the first of them starts is as new for every one of them as a
  // check of its own would be; they share it, and a thousand followers cost one lookup, not a
  // thousand. The entry goes once the check settles: a later delivery of the same (reused) answer
  // starts a new one.
  private stillLinked(answer: ChangeFeedView, readId: string): Promise<string | undefined> {
    let byReadId = this.checks.get(answer);
    if (!byReadId) this.checks.set(answer, (byReadId = new Map<string, Promise<string | undefined>>()));
    const running = byReadId.get(readId);
    if (running) return running;
    const check = this.options.store.readLinks.documentOf(readId).finally(() => byReadId.delete(readId));
    byReadId.set(readId, check);
    return check;
  }

  private async noLinkOf(documentId: string): Promise<ServiceError> {
    const head = await this.options.store.reads(documentId).document();
    return head ? new ServiceError("not-found", `document ${documentId} has no read link`) : documentNotFound(documentId);
  }

  // The document's use cases word their errors with its id; under /read/ the id must not show.
  // Behind a found link the document exists, so their 404 of the document means it is deleted.
  private async hidingId<T>(readId: string, documentId: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.code === "not-found" && error.message === documentNotFound(documentId).message) throw new ServiceError("not-found", `the document of read link ${readId} is deleted`);
      throw new ServiceError(error.code, error.message.replaceAll(documentId, readId), error.extra);
    }
  }
}

function noReadLink(readId: string): ServiceError {
  return new ServiceError("not-found", `no read link ${readId}`);
}
