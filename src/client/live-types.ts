import type { TextEdit } from "../core/text-edits.js";
import type { RetryOptions } from "./backoff.js";
import type { ContentPatchRequest, LineOperation } from "./types.js";

export type SyncStatus = "synced" | "syncing" | "offline" | "conflict";

/**
 * The unacknowledged edit of a live document, as a {@link PendingStore} keeps it: the patch in
 * flight exactly as sent (so that a reload resends it with the same clientId and seq, and the
 * service answers from its receipt instead of applying it twice), the base text it was built
 * against, and the whole local text (edits made after it included).
 */
export interface PersistedPending {
  /** The patch in flight, unchanged; absent when only buffered edits are waiting. */
  request?: ContentPatchRequest;
  /** The text of version `baseVersion`, the base of `request` and of `text`'s edits. */
  baseText: string;
  baseVersion: number;
  /** The local text when it was saved. */
  text: string;
  /** The client id of `request`; the next patches of a reopened document go on with it. */
  clientId: string;
  /** The next seq to use after `request`. */
  nextSeq: number;
  /**
   * Set when the change feed brought other people's changes while `request` was in flight: the
   * service's text that `text` is relative to then (`request`'s edits included), instead of `baseText`.
   */
  localBaseText?: string;
  /** With `localBaseText`: `request`'s edits carried onto it, the text `text`'s later edits are relative to. */
  expectedText?: string;
}

/** Optional persistence of the unacknowledged edit (for example in localStorage or IndexedDB). */
export interface PendingStore {
  load(documentId: string): Promise<PersistedPending | undefined> | PersistedPending | undefined;
  save(documentId: string, pending: PersistedPending | undefined): Promise<void> | void;
}

export interface OpenOptions {
  /**
   * The link's key of an encrypted document (docs/encryption.md): the text and title are decrypted,
   * every line put in is encrypted, and the PendingStore gets the local texts sealed.
   */
  key?: string;
  /** Sent with every patch; changeable later with setDisplayName. */
  displayName?: string;
  /** Default: a random id per live document (crypto.getRandomValues), or the persisted one. */
  clientId?: string;
  pendingStore?: PendingStore;
  /** The feed's long-poll wait in seconds (default 25). */
  waitSeconds?: number;
  /**
   * What happens when the local edits and someone else's change meet in the same lines (a 409
   * ContentConflict, or a change from the feed over unsent edits). "merge" (the default): the lines
   * are merged word by word and character by character, keeping what both people typed (the
   * service's text first where both typed at one point), and the result is sent; nobody is asked
   * (docs/editing-protocol.md, "The client"). "ask": a `conflict` event lets the application choose
   * "theirs" or "mine"; with no listener at that moment the document merges as by default. A
   * listener alone does not switch to asking.
   */
  conflicts?: "merge" | "ask";
  /** Same as doc.on("conflict", ...): called only with `conflicts: "ask"`. */
  onConflict?: (conflict: Conflict) => void;
  /** Waits between attempts after a network failure, 5xx, 429 or 503 (see RetryOptions). */
  retry?: RetryOptions;
  /** A patch, reload or rename without an answer after this long counts as failed and is resent (default 30 s). */
  requestTimeoutMs?: number;
  /**
   * How long a patch whose every changed line ends with a blank waits for the next key (default
   * 700 ms, 0 to send at once): the blank goes out with the word typed after it
   * (docs/editing-protocol.md, "The client").
   */
  blankHoldMs?: number;
}

export interface TextChange {
  origin: "local" | "remote";
  previousText: string;
  text: string;
  /** Line ops that turn previousText into text (sorted, against previousText): the editor maps cursors through them. */
  ops: LineOperation[];
  /**
   * The same change as character edits `{from, to, insert}` against previousText: sorted, not
   * overlapping, offsets in UTF-16 code units (the shape of CodeMirror's ChangeSpec, so they can be
   * dispatched as they are). Every run of lines the ops replace is diffed by characters, so a remote
   * change elsewhere in the line the cursor is in moves the cursor only by what was put in or taken
   * out before it: a cursor mapped through these edits stays with the text the person is typing.
   * A deletion takes the line break after its lines (before them at the end of the text).
   */
  edits: TextEdit[];
}

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
  /** The local text (confirmed + pending edits). */
  readonly text: string;
  /** The last version the local text is based on. */
  readonly version: number;
  readonly title: string;
  /** true: read-only until RESTORED. */
  readonly deleted: boolean;
  readonly status: SyncStatus;
  readonly clientId: string;
  /** The editor hands over its whole text after a local edit. */
  setText(next: string): void;
  setDisplayName(name: string | undefined): void;
  /** A milestone patch (the "save version" button); resolves when the service recorded it. */
  saveMilestone(): Promise<void>;
  /** Title patch with the current version, retried once on 409. */
  rename(title: string): Promise<void>;
  on(event: "change", listener: (change: TextChange) => void): () => void;
  on(event: "title", listener: (title: string) => void): () => void;
  on(event: "deleted" | "restored", listener: () => void): () => void;
  on(event: "conflict", listener: (conflict: Conflict) => void): () => void;
  on(event: "error", listener: (error: Error) => void): () => void;
  on(event: "status", listener: (status: SyncStatus) => void): () => void;
  /** Resolves when no local edit is pending and the last version the feed announced is applied; rejects on close or after `timeoutMs`. */
  whenSynced(timeoutMs?: number): Promise<void>;
  /**
   * Sends what waits for a retry now instead of after its backoff (a page calls it on the browser's
   * `online` event): the pending patch, the feed's next poll. A wait for a Retry-After still runs out.
   */
  retryNow(): void;
  /** Stops every loop, request and timer. */
  close(): void;
}
