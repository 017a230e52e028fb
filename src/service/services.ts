import type { Config } from "../config.js";
import type { Store } from "../storage/store.js";
import { ChangeFeed } from "./change-feed.js";
import { ChangeHub } from "./change-hub.js";
import type { Clock } from "./clock.js";
import { Compactor } from "./compaction.js";
import { DocumentService } from "./documents.js";
import { ListAccess } from "./list-access.js";
import { ServiceEvents } from "./observer.js";
import { ContentPatcher } from "./patch-content.js";

/** Every use case of the service, wired to one store and one clock. */
export interface Services {
  documents: DocumentService;
  patcher: ContentPatcher;
  feed: ChangeFeed;
  hub: ChangeHub;
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

export function createServices(deps: { config: Config; store: Store; clock: Clock; onError?: (error: unknown) => void }): Services {
  const { config, store, clock } = deps;
  const hub = new ChangeHub();
  const events = new ServiceEvents();
  const documents = new DocumentService({ store, clock, config, events, onCommitted: (id, version) => hub.notify(id, version) });
  const unwatch = store.watchCommits({ commit: (notice) => hub.notify(notice.documentId, notice.version), reset: () => hub.wakeAll() });
  const compactor = new Compactor({
    store,
    documents,
    clock,
    retentionSeconds: config.history.retentionSeconds,
    intervalSeconds: config.history.compactionIntervalSeconds,
    events,
    ...(deps.onError ? { onError: deps.onError } : {}),
  });
  return {
    documents,
    hub,
    compactor,
    events,
    patcher: new ContentPatcher({ documents, clock, maxContentBytes: config.documents.maxContentBytes, events }),
    feed: new ChangeFeed({ store, documents, hub, clock, maxWaitSeconds: config.feed.maxWaitSeconds, events }),
    listAccess: new ListAccess({ store, clock, config: config.masterPassword, events }),
    start: () => compactor.start(),
    quiesce: () => {
      hub.close();
      unwatch();
    },
    close: async () => {
      await compactor.stop();
      await documents.close();
    },
  };
}
