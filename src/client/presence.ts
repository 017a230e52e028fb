import { FolioError, isAbort } from "./errors.js";
import type { FolioClient } from "./http.js";
import type { LineCodec } from "./line-codec.js";
import type { PresencePlace } from "./presence-calls.js";
import { VersionSteps } from "./presence-versions.js";
import type { PresenceClient, PresenceList, PresenceUpdateRequest } from "./types.js";

/** A cursor and selection as character offsets (UTF-16) into the local text: `head` is where the caret is. */
export interface PresenceCursor {
  anchor: number;
  head: number;
}

/** Someone else at the document now, as the service's presence list names them. */
export interface PresencePeer {
  clientId: string;
  /** `editor`: at the document by its id; `viewer`: through its read-only link. */
  role: "editor" | "viewer";
  /** The name it gave (unverified); none when it gave none, or its entry did not open. */
  displayName?: string;
  /** Its cursor and selection on the local text now (mapped through the changes taken since it was sent); none when it sent none. */
  cursor?: PresenceCursor;
  /** When it last announced itself (the service's time). */
  updatedAt: string;
  /** An encrypted document's entry that does not open with the link's key (or a state the library cannot read): no name, no cursor. */
  unreadable?: boolean;
}

/** What this client says of itself; a field left out keeps its last value, `cursor: null` withdraws the cursor. */
export interface LocalPresence {
  displayName?: string | undefined;
  cursor?: PresenceCursor | null;
}

/** A live or read-only document's presence (`doc.presence`; docs/api.md, "Presence", the client library). */
export interface Presence {
  readonly clientId: string;
  /** The others at the document now, editors and viewers, in the order they arrived (this client's own entry left out). */
  readonly others: PresencePeer[];
  /**
   * Announces this client, or changes what it says: updates are coalesced (at most one request every
   * 250 ms, the latest state), and the entry is refreshed every 10 s until `leave()` or `close()`.
   * For an encrypted document the cursor and the name are sealed with the document's key: the
   * service's list holds neither.
   */
  set(local: LocalPresence): void;
  /**
   * Says goodbye (DELETE): the entry is gone from every list at once, and nothing is refreshed until
   * the next `set`. `keepalive`: the request outlives the page (for `pagehide`).
   */
  leave(options?: { keepalive?: boolean }): Promise<void>;
}

/** The timing of presence; each has a default (the service's TTL is 30 s). */
export interface PresenceTiming {
  /** The least time between two updates sent (default 250 ms: at most 4 a second). */
  minIntervalMs?: number;
  /** How often a present client refreshes its entry (default 10 s). */
  refreshMs?: number;
  /** How often the list is read while the feed is the long poll and someone listens or this client is present (default 5 s). */
  pollMs?: number;
}

/** What the channel needs of its document. */
export interface PresenceHost {
  client: FolioClient;
  place: PresencePlace;
  role: "editor" | "viewer";
  clientId: string;
  codec: LineCodec;
  signal: AbortSignal;
  /** The version of the service's text the local text rests on. */
  version(): number;
  /** A position of the local text on that version of the service's text, and back. */
  toService(pos: number): number;
  toLocal(pos: number): number;
  /** Whether anyone listens to the document's `presence` event. */
  listening(): boolean;
  emit(others: PresencePeer[]): void;
}

/** A cursor as sent: its positions are on the service's text of `version`. */
interface WireCursor extends PresenceCursor {
  version: number;
}

const isOffset = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;
const wireCursorOf = (value: unknown): WireCursor | undefined => {
  const cursor = value as Partial<WireCursor> | null;
  return typeof cursor === "object" && cursor !== null && isOffset(cursor.anchor) && isOffset(cursor.head) && isOffset(cursor.version) ? { anchor: cursor.anchor, head: cursor.head, version: cursor.version } : undefined;
};

/** One entry of the list as read: its name and cursor out of the plain entry, or out of the sealed state. */
function readEntry(entry: PresenceClient, codec: LineCodec): { displayName?: string; cursor?: WireCursor; unreadable?: true } {
  const state = entry.state as Record<string, unknown>;
  let inner: { displayName?: unknown; cursor?: unknown } = { displayName: entry.displayName, cursor: state["cursor"] };
  if (codec.encrypted) {
    const sealed = state["sealed"];
    const opened = typeof sealed === "string" ? codec.openPresence(sealed) : undefined;
    try {
      inner = opened === undefined ? {} : (JSON.parse(opened) as typeof inner);
    } catch {
      inner = {};
    }
    if (opened === undefined || typeof inner !== "object" || inner === null) return { unreadable: true };
  }
  const cursor = wireCursorOf(inner.cursor);
  const displayName = typeof inner.displayName === "string" ? inner.displayName.slice(0, 64) : undefined;
  return { ...(displayName !== undefined ? { displayName } : {}), ...(cursor ? { cursor } : {}) };
}

/**
 * The presence of one live or read-only document: sends this client's entry (coalesced, refreshed,
 * sealed for encrypted documents), hears the list (from the event stream's `event: presence`, else
 * by reading it every few seconds), and maps the others' cursors onto the local text.
 */
export class PresenceChannel implements Presence {
  private readonly steps = new VersionSteps();
  private readonly minIntervalMs: number;
  private readonly refreshMs: number;
  private readonly pollMs: number;
  /** The others' entries as last heard, each read once (opened, for an encrypted document). */
  private entries: Array<{ entry: PresenceClient; read: ReturnType<typeof readEntry> }> = [];
  private lastList = "";
  private displayName: string | undefined;
  private cursor: WireCursor | undefined;
  private present = false;
  private sending = false;
  private dirty = false;
  private lastSentAt = -Infinity;
  private sendTimer: ReturnType<typeof setTimeout> | undefined;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private streaming = false;
  private polling = false;
  /** No more requests before this time (a 429's Retry-After). */
  private notBefore = 0;
  private failures = 0;
  private lastReadAt = -Infinity;
  private stopped = false;

  constructor(
    private readonly host: PresenceHost,
    timing: PresenceTiming = {},
  ) {
    this.minIntervalMs = timing.minIntervalMs ?? 250;
    this.refreshMs = timing.refreshMs ?? 10_000;
    this.pollMs = timing.pollMs ?? 5_000;
  }

  get clientId(): string { return this.host.clientId; }

  get others(): PresencePeer[] {
    const now = this.host.version();
    const peers: PresencePeer[] = [];
    for (const { entry, read } of this.entries) {
      const peer: PresencePeer = { clientId: entry.clientId, role: entry.role, updatedAt: entry.updatedAt, ...(read.displayName !== undefined ? { displayName: read.displayName } : {}), ...(read.unreadable ? { unreadable: true } : {}) };
      if (read.cursor) {
        // A cursor of a version not taken here yet (or too old to map) is placed as it is, until the version comes.
        const at = (pos: number) => this.host.toLocal(this.steps.map(pos, read.cursor!.version, now) ?? pos);
        peer.cursor = { anchor: at(read.cursor.anchor), head: at(read.cursor.head) };
      }
      peers.push(peer);
    }
    return peers;
  }

  set(local: LocalPresence): void {
    if (this.stopped) return;
    if ("displayName" in local) this.displayName = local.displayName?.slice(0, 64) || undefined;
    if (local.cursor === null) this.cursor = undefined;
    else if (local.cursor) this.cursor = { anchor: this.host.toService(local.cursor.anchor), head: this.host.toService(local.cursor.head), version: this.host.version() };
    this.present = true;
    this.dirty = true;
    this.schedule();
  }

  async leave(options: { keepalive?: boolean } = {}): Promise<void> {
    const wasPresent = this.present || this.sending;
    this.present = false;
    this.dirty = false;
    clearTimeout(this.sendTimer);
    if (!wasPresent) return;
    await this.host.client.presence.leave(this.host.place, this.host.clientId, options);
  }

  /** The document took a step of the service's text (`map`: its positions from `from` to `to`). */
  moved(from: number, to: number, map: ((pos: number) => number) | undefined): void {
    this.steps.record(from, to, map);
    // A cursor that waited for this version is now where it belongs.
    if (this.entries.some(({ read }) => (read.cursor?.version ?? 0) > from)) this.host.emit(this.others);
  }

  /** A list from the event stream (or a read). */
  heard(list: PresenceList): void {
    const others = list.clients.filter((entry) => entry.clientId !== this.host.clientId || entry.role !== this.host.role);
    // Told only when the others changed (not at this client's own refreshes).
    const text = JSON.stringify(others);
    if (text === this.lastList) return;
    this.lastList = text;
    this.entries = others.map((entry) => ({ entry, read: readEntry(entry, this.host.codec) }));
    this.host.emit(this.others);
  }

  /** The feed's event stream opened (true) or ended (false): while it is open, it brings the lists. */
  setStreaming(open: boolean): void {
    this.streaming = open;
    // A stream opened on an empty document sends no list: the one held may be stale, so it is read
    // (once per pollMs at most, however often the stream opens again).
    if (open && Date.now() - this.lastReadAt >= this.pollMs) void this.readList();
    this.poll();
  }

  /** Someone started listening: the list is read now when no stream brings it. */
  listened(): void {
    if (!this.streaming) void this.readList();
    this.poll();
  }

  /** Starts reading the list by polling while no stream brings it. */
  start(): void { this.poll(); }

  /** Stops every timer; a present client says goodbye (not awaited). */
  close(): void {
    if (this.stopped) return;
    const wasPresent = this.present;
    this.stopped = true;
    clearTimeout(this.sendTimer);
    clearTimeout(this.pollTimer);
    if (wasPresent) this.leave().catch(() => undefined);
  }

  /** Sends the entry now, or once the least interval (or a Retry-After) has passed; a send in flight sends again after it. */
  private schedule(): void {
    if (this.stopped || this.sending) return;
    clearTimeout(this.sendTimer);
    const now = Date.now();
    const at = this.dirty ? Math.max(this.lastSentAt + this.minIntervalMs, this.notBefore) : this.lastSentAt + this.refreshMs;
    if (at > now) this.sendTimer = setTimeout(() => this.schedule(), at - now);
    else void this.send();
  }

  private body(): PresenceUpdateRequest {
    const inner = { ...(this.displayName !== undefined ? { displayName: this.displayName } : {}), ...(this.cursor ? { cursor: this.cursor } : {}) };
    // Sealed: no name and no position in plain on the service (the sealed text is padded to a bucket).
    if (this.host.codec.encrypted) return { state: { sealed: this.host.codec.sealPresence(JSON.stringify(inner)) } };
    return { ...(inner.displayName !== undefined ? { displayName: inner.displayName } : {}), state: inner.cursor ? { cursor: inner.cursor } : {} };
  }

  private async send(): Promise<void> {
    if (!this.present || this.stopped) return;
    this.sending = true;
    this.dirty = false;
    this.lastSentAt = Date.now();
    try {
      await this.host.client.presence.set(this.host.place, this.host.clientId, this.body(), this.host.signal);
      this.failures = 0;
    } catch (error) {
      if (isAbort(error)) return;
      if (error instanceof FolioError && error.status === 404) this.present = false;
      // A 429 (too many updates, or a full document) is waited out as its Retry-After asks; other
      // failures are tried again after a growing pause, at most the refresh interval.
      else this.dirty = true;
      const retryAfter = error instanceof FolioError ? error.retryAfterSeconds : undefined;
      this.failures++;
      this.notBefore = Date.now() + (retryAfter !== undefined ? retryAfter * 1000 : Math.min(this.refreshMs, 500 * 2 ** Math.min(this.failures, 10)));
    } finally {
      this.sending = false;
    }
    if (this.present) this.schedule();
    else if (!this.stopped && this.lastSentAt > 0) void this.host.client.presence.leave(this.host.place, this.host.clientId).catch(() => undefined);
  }

  /** Reads the list every `pollMs` while no stream brings it and someone listens (or this client is present). */
  private poll(): void {
    clearTimeout(this.pollTimer);
    if (this.stopped || this.streaming) return;
    this.pollTimer = setTimeout(() => {
      void (async () => {
        if (this.host.listening() || this.present) await this.readList();
        this.poll();
      })();
    }, Math.max(this.pollMs, this.notBefore - Date.now()));
  }

  private async readList(): Promise<void> {
    if (this.polling || this.stopped || Date.now() < this.notBefore) return;
    this.polling = true;
    this.lastReadAt = Date.now();
    try {
      this.heard(await this.host.client.presence.list(this.host.place, this.host.signal));
    } catch (error) {
      const retryAfter = error instanceof FolioError ? error.retryAfterSeconds : undefined;
      if (retryAfter !== undefined) this.notBefore = Date.now() + retryAfter * 1000;
    } finally {
      this.polling = false;
    }
  }
}
