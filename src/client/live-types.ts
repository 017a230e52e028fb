import type { ChangeSet, Text } from "@codemirror/state";
import type { TextEdit } from "../core/char-diff.js";
import type { RetryOptions } from "./backoff.js";
import type { PendingStore } from "./pending-log.js";
import type { Presence, PresencePeer, PresenceTiming } from "./presence.js";

export type SyncStatus = "synced" | "syncing" | "offline" | "conflict";

export interface OpenOptions {
  /**
   * The link's key of an encrypted document (docs/encryption.md): the text and title are decrypted,
   * every line put in is encrypted, and the PendingStore gets what it keeps sealed.
   */
  key?: string;
  /** Sent with every patch; changeable later with setDisplayName. */
  displayName?: string;
  /** Default: a random id per live document (crypto.getRandomValues), or the kept one. */
  clientId?: string;
  pendingStore?: PendingStore;
  /** The feed's long-poll wait in seconds (default 25). */
  waitSeconds?: number;
  /**
   * How the feed is followed: "stream", the event stream (docs/api.md, "The event stream"), which
   * falls back to the long poll by itself when the service has none (an older one) or a proxy holds
   * its first frame back; or "poll", the long poll only (the default for now).
   */
  feed?: "stream" | "poll";
  /** With `feed: "stream"`: how long the stream's first frame may take before the long poll is taken instead (default 5,000 ms). */
  firstFrameMs?: number;
  /**
   * What happens when the local edits and someone else's change meet in the same lines (a 409, or a
   * change from the feed over unsent edits). "merge" (the default): the edits are merged by
   * characters by the merge rule (docs/editing-protocol.md, "The merge rule") and the result is
   * sent; nobody is asked. "ask": on a 409 a `conflict` event lets the application choose "theirs"
   * or "mine"; with no listener at that moment the document merges as by default.
   */
  conflicts?: "merge" | "ask";
  /** Same as doc.on("conflict", ...): called only with `conflicts: "ask"`. */
  onConflict?: (conflict: Conflict) => void;
  /** Waits between attempts after a network failure, 5xx, 429 or 503 (see RetryOptions). */
  retry?: RetryOptions;
  /** A patch, reload or rename without an answer after this long counts as failed and is resent (default 30 s). */
  requestTimeoutMs?: number;
  /** The timing of presence (`doc.presence`): its defaults suit the service's 30 s TTL. */
  presence?: PresenceTiming;
}

/**
 * A change of the local text that did not come from `edit` (someone else's, merged with the local
 * edits): the character changes against the text before it, which an editor applies as one
 * transaction so that its cursor and selection are mapped through them.
 */
export interface TextChange {
  origin: "remote";
  /** The change as CodeMirror's ChangeSet (on the text before it): `view.dispatch({ changes })`. */
  changes: ChangeSet;
  /** The same change as `{from, to, insert}` against the text before it: sorted, apart, UTF-16 offsets. */
  edits: TextEdit[];
  /** The version of the service's text after it. */
  version: number;
  /**
   * Where a cursor of the text before goes: like `changes.mapPos`, but text put in right at the
   * cursor goes before or after it as the merge rule would place what the person types next there
   * (docs/editing-protocol.md, "The merge rule"). An editor maps its selection with it.
   */
  mapCursor(pos: number): number;
}

/** The events of a live document and their arguments (see LiveDocument.on). */
export type LiveEvents = {
  change: [TextChange];
  title: [string];
  deleted: [];
  restored: [];
  "key-lost": [];
  conflict: [Conflict];
  error: [Error];
  status: [SyncStatus];
  presence: [PresencePeer[]];
};

/** Emitted only with `conflicts: "ask"` (see OpenOptions.conflicts). */
export interface Conflict {
  /** The service's current text. */
  theirs: string;
  /** The local text the rejected edit would have produced. */
  mine: string;
  /** The version `theirs` is. */
  version: number;
  /** "mine" = a new diff against the current version. Only the first call counts. */
  resolve(choice: "theirs" | "mine"): void;
}

export interface LiveDocument {
  readonly id: string;
  /** The local text (the service's with the unconfirmed edits), as a string: it costs the document's length. */
  readonly text: string;
  /** The local text as a CodeMirror `Text` (shared, not copied). */
  readonly doc: Text;
  /** The version of the service's text the local text rests on. */
  readonly version: number;
  readonly title: string;
  /** true: read-only until RESTORED. */
  readonly deleted: boolean;
  /** true: an encrypted document whose key changed; this link's key no longer opens it, and nothing is sent. */
  readonly keyLost: boolean;
  readonly status: SyncStatus;
  readonly clientId: string;
  /**
   * Who else is at the document, and this client's own entry (docs/api.md, "Presence", the client
   * library): `presence.set({ cursor, displayName })`, `presence.leave()`, `presence.others`; the
   * `presence` event tells each new list of the others.
   */
  readonly presence: Presence;
  /**
   * A local edit: changes against the local text as it is (CodeMirror's ChangeSet or `{from, to,
   * insert}` specs, all against the text before). The editor binding hands over each transaction's changes.
   */
  edit(changes: ChangeSet | readonly TextEdit[]): void;
  /** The local text replaced by `next`, as the characters that differ (for programs without an editor; costs the document's length). */
  setText(next: string): void;
  setDisplayName(name: string | undefined): void;
  /** A milestone patch (the "save version" button); resolves when the service recorded it. */
  saveMilestone(): Promise<void>;
  /** Title patch with the current version, retried once on 409. */
  rename(title: string): Promise<void>;
  on(event: "change", listener: (change: TextChange) => void): () => void;
  on(event: "title", listener: (title: string) => void): () => void;
  on(event: "deleted" | "restored" | "key-lost", listener: () => void): () => void;
  on(event: "conflict", listener: (conflict: Conflict) => void): () => void;
  on(event: "error", listener: (error: Error) => void): () => void;
  on(event: "status", listener: (status: SyncStatus) => void): () => void;
  /** The others at the document changed (someone came, left, moved their cursor); their cursors are on the local text now. */
  on(event: "presence", listener: (others: PresencePeer[]) => void): () => void;
  /** Resolves when no local edit is unconfirmed and the last version the feed announced is applied; rejects on close or after `timeoutMs`. */
  whenSynced(timeoutMs?: number): Promise<void>;
  /**
   * Sends what waits for a retry now instead of after its backoff (a page calls it on the browser's
   * `online` event): the pending patch, the feed's next poll. A wait for a Retry-After still runs out.
   */
  retryNow(): void;
  /** Stops every loop, request and timer; a client present says goodbye. */
  close(): void;
}
