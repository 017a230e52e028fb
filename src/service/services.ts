import { createHash } from "node:crypto";
import type { Sha256Hex } from "../core/checksum.js";
import type { Config } from "../config/config.js";
import type { Store } from "../storage/store.js";
import { ChangeFeed } from "./change-feed.js";
import { ChangeHub } from "./change-hub.js";
import type { Clock } from "./clock.js";
import { Compactor } from "./compaction.js";
import { ContentLimit } from "./content-limit.js";
import { DocumentService } from "./documents.js";
import { HeadTexts } from "./document-text.js";
import { DocumentWriter } from "./document-writer.js";
import { HEAD_CACHE_CHARACTERS, HeadCache } from "./caches/head-cache.js";
import { historyPolicy, type HistoryPolicy } from "./history-policy.js";
import { ListAccess } from "./list-access.js";
import { ServiceEvents } from "./observer.js";
import { ContentPatcher } from "./patch-content.js";
import { Presence } from "./presence.js";
import { ReadLinks } from "./read-links.js";
import { PRESENCE_STATE_BYTES } from "../api/presence.js";

const nodeSha256: Sha256Hex = (text) => createHash("sha256").update(text, "utf8").digest("hex");

/** Every use case of the service, wired to one store and one clock. */
export interface Services {
  documents: DocumentService;
  /** The one way into a document's history, with the head cache it keeps. */
  writer: DocumentWriter;
  /** The newest texts and recent versions, from the head cache or the store. */
  texts: HeadTexts;
  /** Pause, retention and cutoff: the history's time rules, once. */
  policy: HistoryPolicy;
  patcher: ContentPatcher;
  feed: ChangeFeed;
  /** Read-only links: made, rotated and revoked per document; reads through them. */
  readLinks: ReadLinks;
  hub: ChangeHub;
  /** Who is at each document now: in memory on this instance, never stored. */
  presence: Presence;
  listAccess: ListAccess;
  compactor: Compactor;
  /** Where the use cases report their work; the composition adds the metrics and the log warnings. */
  events: ServiceEvents;
  /** Starts the background work (compaction now and every interval). */
  start(): void;
  /** Answers waiting feed requests at once and stops taking notices (first step of shutdown). */
  quiesce(): void;
  /** Stops the background work and waits for queued writes. */
  close(): Promise<void>;
}

/**
 * The use cases' part of the wiring, called by the composition root (src/composition.ts; a test may
 * call it for a second set of use cases on one store): the one place that builds the history
 * policy, the head cache, the writer and the text reads, and hands each use case the ones it needs.
 */
export function createServices(deps: { config: Config; store: Store; clock: Clock; onError?: (error: unknown) => void }): Services {
  const { config, store, clock } = deps;
  const hub = new ChangeHub({ clock });
  const events = new ServiceEvents();
  const policy = historyPolicy(config.history, clock);
  const cache = new HeadCache(HEAD_CACHE_CHARACTERS);
  const writer = new DocumentWriter({ store, policy: { ...policy, sha256: nodeSha256 }, onCommitted: (id, version) => hub.notify(id, version), cache, events });
  const texts = new HeadTexts({ store, cache, policy });
  const contentLimit = new ContentLimit(config.documents.maxContentBytes);
  const documents = new DocumentService({ store, writer, texts, contentLimit });
  const feed = new ChangeFeed({ store, texts, hub, clock, maxWaitSeconds: config.feed.maxWaitSeconds, events });
  const unwatch = store.watchCommits({ commit: (notice) => hub.notify(notice.documentId, notice.version), reset: () => hub.wakeAll() });
  const compactor = new Compactor({
    store,
    writer,
    policy,
    clock,
    intervalSeconds: config.history.compactionIntervalSeconds,
    events,
    ...(deps.onError ? { onError: deps.onError } : {}),
  });
  const presence = new Presence({ store, clock, ...config.presence, maxStateBytes: PRESENCE_STATE_BYTES });
  const listAccess = new ListAccess({ store, clock, config: config.masterPassword, events });
  return {
    documents,
    writer,
    texts,
    policy,
    hub,
    compactor,
    events,
    patcher: new ContentPatcher({ writer, clock, contentLimit, events }),
    feed,
    readLinks: new ReadLinks({ store, documents, feed, presence, clock }),
    presence,
    listAccess,
    start: () => compactor.start(),
    quiesce: () => {
      hub.close();
      unwatch();
    },
    close: async () => {
      presence.close();
      await compactor.stop();
      await listAccess.close();
      // Queued writes finish, so nothing acknowledged is lost at shutdown.
      await writer.idle();
    },
  };
}
