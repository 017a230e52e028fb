import { RELAY_MESSAGE_BYTES, type Store } from "../storage/store.js";
import type { Clock, Timer } from "./clock.js";
import { documentNotFound } from "./documents.js";
import { PresenceWatchers, type PresenceEntry, type PresenceListener, type PresenceRole } from "./presence-watchers.js";

export type { PresenceEntry, PresenceRole } from "./presence-watchers.js";
import { ServiceError } from "./service-error.js";

// docs/api.md, "Presence"; docs/choices.md, "Presence", for what the issue left open.

export interface PresenceOptions {
  store: Store;
  clock: Clock;
  ttlSeconds: number;
  maxClients: number;
  /** The largest `state` in bytes of its JSON; a larger one is a 413. */
  maxStateBytes: number;
}

/** Updates one client may send a second, per document and role; past it: 429. */
export const PRESENCE_UPDATES_PER_SECOND = 20;

/** An entry with what the rate limit remembers: the times of its latest updates, oldest first. */
interface Held extends PresenceEntry {
  recent: number[];
}

/**
 * Who is at each document now: in memory on this instance only, never in the store, its history,
 * the feed, a backup or a log line. An entry lives `ttlSeconds` after its latest update, or until
 * its client says goodbye. Entries are keyed by role and client id, so a viewer (through a read
 * link, which shows the client ids) can neither replace nor remove an editor's entry. Expired
 * entries leave when their document is next touched and at a sweep every `ttlSeconds`.
 */
export class Presence {
  private readonly documents = new Map<string, Map<string, Held>>();
  private readonly ttlMs: number;
  private sweep: Timer | undefined;
  private stopped = false;
  private readonly watchers: PresenceWatchers;
  private readonly stopRelay: (() => void) | undefined;

  constructor(private readonly options: PresenceOptions) {
    this.ttlMs = options.ttlSeconds * 1000;
    this.watchers = new PresenceWatchers({ clock: options.clock, ttlMs: this.ttlMs, current: (documentId) => this.current(documentId) });
    // Other instances on the same database tell theirs (PostgreSQL's NOTIFY, never stored): every instance lists them all.
    this.stopRelay = options.store.relay?.watch((message) => this.relayed(message));
  }

  /**
   * Hears the document's list whenever it changes, at most 10 times a second (src/service/presence-watchers.ts);
   * the caller checked that the document exists. The returned function stops listening.
   */
  watch(documentId: string, listener: PresenceListener): () => void {
    return this.watchers.watch(documentId, listener);
  }

  /** The document's list now, without asking the store whether it exists (for the event streams). */
  current(documentId: string): PresenceEntry[] {
    return [...(this.live(documentId)?.values() ?? [])].map(({ recent: _recent, ...entry }) => entry);
  }

  /** The clients present at an existing document, in the order they arrived; 404 for an unknown or deleted one. */
  async list(documentId: string): Promise<PresenceEntry[]> {
    await this.mustExist(documentId);
    return this.current(documentId);
  }

  /**
   * Announces (or refreshes) a client. 404 for an unknown or deleted document, 413 for a state
   * over the limit, 429 `rate-limited` for a client's update past {@link PRESENCE_UPDATES_PER_SECOND}
   * a second, 429 `presence-full` for a new client at a full document.
   */
  async set(documentId: string, role: PresenceRole, clientId: string, input: { displayName?: string; state: Record<string, unknown> }): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(input.state), "utf8");
    if (bytes > this.options.maxStateBytes) throw new ServiceError("content-too-large", `the presence state is ${bytes} bytes as JSON; at most ${this.options.maxStateBytes}`);
    await this.mustExist(documentId);
    const now = this.options.clock.now();
    const key = `${role}:${clientId}`;
    let clients = this.live(documentId);
    const held = clients?.get(key);
    if (held) {
      const oldest = held.recent[0] ?? now;
      if (held.recent.length >= PRESENCE_UPDATES_PER_SECOND && oldest > now - 1000) {
        const seconds = Math.max(1, Math.ceil((oldest + 1000 - now) / 1000));
        throw new ServiceError("rate-limited", `more than ${PRESENCE_UPDATES_PER_SECOND} presence updates in a second from client ${clientId}; retry in ${seconds} s`, { retryAfterSeconds: seconds });
      }
    } else if (clients && clients.size >= this.options.maxClients) {
      const stalest = Math.min(...[...clients.values()].map((entry) => entry.updatedAt));
      const seconds = Math.max(1, Math.ceil((stalest + this.ttlMs - now) / 1000));
      throw new ServiceError("presence-full", `this document has ${this.options.maxClients} clients present, the most it holds; retry in ${seconds} s`, { retryAfterSeconds: seconds });
    }
    if (!clients) this.documents.set(documentId, (clients = new Map<string, Held>()));
    const recent = [...(held?.recent ?? []).slice(1 - PRESENCE_UPDATES_PER_SECOND), now];
    const { displayName } = input;
    const entry: PresenceEntry = { clientId, ...(displayName !== undefined ? { displayName } : {}), role, state: input.state, updatedAt: now };
    clients.set(key, { ...entry, recent });
    this.startSweep();
    this.watchers.changed(documentId);
    this.relay({ presence: "set", documentId, ...entry });
  }

  /** Removes a client at once; 204 also when it was not there (idempotent). 404 for an unknown or deleted document. */
  async remove(documentId: string, role: PresenceRole, clientId: string): Promise<void> {
    await this.mustExist(documentId);
    // Another instance may hold the entry though this one lost the message that made it.
    this.relay({ presence: "remove", documentId, role, clientId });
    this.forget(documentId, `${role}:${clientId}`);
  }

  private forget(documentId: string, key: string): void {
    const clients = this.live(documentId);
    if (!clients?.delete(key)) return;
    if (clients.size === 0) this.documents.delete(documentId);
    this.watchers.changed(documentId);
  }

  private relay(message: RelayMessage): void {
    const text = JSON.stringify(message);
    if (this.options.store.relay && Buffer.byteLength(text, "utf8") <= RELAY_MESSAGE_BYTES) this.options.store.relay.send(text);
  }

  /** Another instance's update or goodbye, applied as it was there (its document exists; its rate was checked). */
  private relayed(text: string): void {
    if (this.stopped) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRelayMessage(message)) return;
    const { documentId, role, clientId } = message;
    const key = `${role}:${clientId}`;
    if (message.presence === "remove") return this.forget(documentId, key);
    const { presence: _presence, documentId: _documentId, ...entry } = message;
    let clients = this.live(documentId);
    const held = clients?.get(key);
    if (!held && clients && clients.size >= this.options.maxClients) return;
    if (entry.updatedAt <= this.options.clock.now() - this.ttlMs) return;
    if (!clients) this.documents.set(documentId, (clients = new Map<string, Held>()));
    clients.set(key, { ...entry, recent: held?.recent ?? [] });
    this.startSweep();
    this.watchers.changed(documentId);
  }

  /** Entries held on this instance, all documents together (for tests and metrics). */
  get size(): number {
    let size = 0;
    for (const clients of this.documents.values()) size += clients.size;
    return size;
  }

  /** Documents whose list someone listens to (for tests). */
  get watchedDocuments(): number {
    return this.watchers.size;
  }

  /** Stops the sweep and forgets every entry (shutdown). */
  close(): void {
    this.stopped = true;
    this.stopRelay?.();
    this.sweep?.cancel();
    this.sweep = undefined;
    this.watchers.close();
    this.documents.clear();
  }

  /** The document's entries with the expired ones dropped (and the document forgotten when none is left). */
  private live(documentId: string): Map<string, Held> | undefined {
    const clients = this.documents.get(documentId);
    if (!clients) return undefined;
    const expired = this.dropExpired(clients);
    if (clients.size === 0) this.documents.delete(documentId);
    if (expired) this.watchers.changed(documentId);
    return clients.size === 0 ? undefined : clients;
  }

  private dropExpired(clients: Map<string, Held>): boolean {
    const cutoff = this.options.clock.now() - this.ttlMs;
    let expired = false;
    for (const [key, entry] of clients) {
      if (entry.updatedAt > cutoff) continue;
      clients.delete(key);
      expired = true;
    }
    return expired;
  }

  /** Every `ttlSeconds` while anything is held: drops what expired on documents nobody touched since. */
  private startSweep(): void {
    if (this.sweep || this.stopped) return;
    this.sweep = this.options.clock.timer(
      this.ttlMs,
      () => {
        this.sweep = undefined;
        for (const documentId of [...this.documents.keys()]) this.live(documentId);
        if (this.documents.size > 0) this.startSweep();
      },
      { unref: true },
    );
  }

  private async mustExist(documentId: string): Promise<void> {
    const head = await this.options.store.reads(documentId).document();
    if (!head || head.deleted) throw documentNotFound(documentId);
  }
}

/** What the instances tell each other (src/storage/store.ts, InstanceRelay). */
type RelayMessage =
  | ({ presence: "set"; documentId: string } & PresenceEntry)
  | { presence: "remove"; documentId: string; role: PresenceRole; clientId: string };

const isText = (value: unknown, max: number): value is string => typeof value === "string" && value.length <= max;

function isRelayMessage(value: unknown): value is RelayMessage {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  const { presence, documentId, role, clientId } = message;
  if (!isText(documentId, 36) || (role !== "editor" && role !== "viewer") || !isText(clientId, 64) || clientId === "") return false;
  if (presence === "remove") return true;
  const { state, updatedAt, displayName } = message;
  return (
    presence === "set" &&
    typeof state === "object" && state !== null && !Array.isArray(state) &&
    typeof updatedAt === "number" && Number.isFinite(updatedAt) &&
    (displayName === undefined || isText(displayName, 64))
  );
}
