import type { Clock, Timer } from "./clock.js";

export type PresenceRole = "editor" | "viewer";

/** One client present at a document, as the list shows it (times as epoch milliseconds). */
export interface PresenceEntry {
  clientId: string;
  displayName?: string;
  role: PresenceRole;
  state: Record<string, unknown>;
  updatedAt: number;
}

// docs/api.md, "Presence" (on the event stream): a document's list goes to its open streams at
// most 10 times a second, however many updates arrive.

/** The shortest time between two lists sent for one document: 100 ms, so at most 10 a second. */
export const PRESENCE_EVENT_INTERVAL_MS = 100;

/** Hears a document's presence list; every listener of one send gets the same array (a frame is made once). */
export type PresenceListener = (clients: readonly PresenceEntry[]) => void;

interface Watched {
  listeners: Set<PresenceListener>;
  /** When the last list went out (epoch ms); -Infinity before the first. */
  sentAt: number;
  /** The send waiting for the interval to pass, when one is due. */
  due?: Timer;
  /** The timer that looks again when the stalest entry expires. */
  expiry?: Timer;
}

export interface PresenceWatchersOptions {
  clock: Clock;
  /** The document's list now, expired entries dropped. */
  current: (documentId: string) => PresenceEntry[];
  /** The entries' time to live, to look again when the stalest one expires. */
  ttlMs: number;
}

/**
 * The listeners of each document's presence (the open event streams), and the coalescing: a change
 * sends the list at once when the last one went out 100 ms ago or more, else once that interval has
 * passed, with whatever the list is then. While a document is watched, a timer looks again when its
 * stalest entry expires, so a departure without goodbye reaches the streams within the interval.
 */
export class PresenceWatchers {
  private readonly documents = new Map<string, Watched>();
  private sending = false;

  constructor(private readonly options: PresenceWatchersOptions) {}

  /** Listens to `documentId`'s list from now on (at once when it holds anyone); the returned function stops it. */
  watch(documentId: string, listener: PresenceListener): () => void {
    let watched = this.documents.get(documentId);
    if (!watched) this.documents.set(documentId, (watched = { listeners: new Set(), sentAt: -Infinity }));
    watched.listeners.add(listener);
    // A new listener hears who is there already (nothing when nobody is).
    const clients = this.options.current(documentId);
    if (clients.length > 0) listener(clients);
    this.lookAgainAtExpiry(documentId, watched, clients);
    return () => {
      const now = this.documents.get(documentId);
      if (!now?.listeners.delete(listener) || now.listeners.size > 0) return;
      now.due?.cancel();
      now.expiry?.cancel();
      this.documents.delete(documentId);
    };
  }

  /** The document's list may have changed: sends it now or when the interval has passed. */
  changed(documentId: string): void {
    const watched = this.documents.get(documentId);
    // A change found while a list is being made (an expiry it drops) is in that very list.
    if (!watched || watched.due || this.sending) return;
    const wait = watched.sentAt + PRESENCE_EVENT_INTERVAL_MS - this.options.clock.now();
    if (wait <= 0) return this.send(documentId, watched);
    watched.due = this.options.clock.timer(wait, () => {
      watched.due = undefined;
      if (this.documents.get(documentId) === watched) this.send(documentId, watched);
    });
  }

  /** Documents watched now (for tests). */
  get size(): number {
    return this.documents.size;
  }

  close(): void {
    for (const watched of this.documents.values()) {
      watched.due?.cancel();
      watched.expiry?.cancel();
    }
    this.documents.clear();
  }

  private send(documentId: string, watched: Watched): void {
    this.sending = true;
    let clients: PresenceEntry[];
    try {
      clients = this.options.current(documentId);
    } finally {
      this.sending = false;
    }
    watched.sentAt = this.options.clock.now();
    for (const listener of [...watched.listeners]) listener(clients);
    this.lookAgainAtExpiry(documentId, watched, clients);
  }

  private lookAgainAtExpiry(documentId: string, watched: Watched, clients = this.options.current(documentId)): void {
    watched.expiry?.cancel();
    watched.expiry = undefined;
    if (clients.length === 0) return;
    const stalest = Math.min(...clients.map((entry) => entry.updatedAt));
    watched.expiry = this.options.clock.timer(Math.max(0, stalest + this.options.ttlMs - this.options.clock.now()), () => {
      watched.expiry = undefined;
      if (this.documents.get(documentId) !== watched) return;
      // Reading the list drops what expired, and that change sends it.
      this.options.current(documentId);
      if (!watched.expiry) this.lookAgainAtExpiry(documentId, watched);
    });
  }
}
