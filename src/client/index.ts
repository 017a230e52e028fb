/**
 * The Folio client: typed calls for every endpoint and live documents that speak the editing
 * protocol (docs/editing-protocol.md). Runs in browsers and in Node 20: `fetch` only, no Node API;
 * the line algebra is the service's own (src/core).
 */
export { createClient, type ClientOptions, type FolioClient, type PatchAnswer, type TrackerCalls } from "./http.js";
export { FolioError, FolioNetworkError } from "./errors.js";
export { openDocument, randomClientId } from "./open-document.js";
export { openReadOnly, type ReadOnlyChange, type ReadOnlyLiveDocument, type ReadOnlyOptions, type ReadOnlyStatus } from "./read-only-document.js";
export type { ReadCalls } from "./read-calls.js";
export type { PresenceCalls, PresencePlace } from "./presence-calls.js";
export type { LocalPresence, Presence, PresenceCursor, PresencePeer, PresenceTiming } from "./presence.js";
export { type Conflict, type LiveDocument, type OpenOptions, type SyncStatus, type TextChange } from "./live-types.js";
export type { PendingStore, StoredPending } from "./pending-log.js";
export { isEarlierRecord, type EarlierPending } from "./earlier-record.js";
export type { RetryOptions } from "./backoff.js";
export type { FeedStream, PresenceFrame, StreamFrame } from "./feed-stream.js";
export type * from "./types.js";
export { checksumOf } from "../core/checksum.js";
export { joinLines, splitLines } from "../core/lines.js";
export { rebuildAfterPatch } from "../core/rebuild-rule.js";
export type { TextEdit } from "../core/char-diff.js";
export { generateDocumentKey, isEncryptedDocument, MAX_TITLE_BYTES } from "./encryption/document-key.js";
export { createEncryptedDocument, changeDocumentKey, withDocumentKey } from "./encryption/keyed-client.js";
export { UNREADABLE_LINE, UNREADABLE_TITLE } from "./encryption/codec.js";
export { NotEncryptedError, TitleTooLongError, WrongKeyError } from "./encryption/errors.js";
export { exportLocally, type ExportedFile, type ExportOptions } from "./export-calls.js";
export { EXPORT_FORMATS, exportFileName, exportOutline, importFormatOf, importOutline, type ExportFormat } from "../core/outline-formats.js";
export { canonicalOutline, DEFAULT_IMPORT_LIMITS, type ImportLimits, type ImportResult } from "../core/outline-text.js";
