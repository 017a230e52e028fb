import { EncryptedCodec } from "./encryption/codec.js";
import type { FolioClient } from "./http.js";
import { joinLines, splitLines } from "../core/lines.js";
import { PLAIN_CODEC, type LineCodec } from "./line-codec.js";
import { LiveDocumentImpl } from "./live-document.js";
import type { LiveDocument, OpenOptions, PersistedPending } from "./live-types.js";
import type { Document } from "./types.js";

/** A random client id: 128 bits from crypto.getRandomValues, as 32 hex digits. */
export function randomClientId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A record with no edit: the document as it is, with the clientId and next seq of `stored`. */
function nothingPending(stored: PersistedPending, document: Document, codec: LineCodec): PersistedPending {
  const text = joinLines(codec.decodeLines(splitLines(document.content)));
  return { clientId: stored.clientId, nextSeq: stored.nextSeq, baseVersion: document.version, baseText: document.content, text };
}

/**
 * Opens a live document: reads it, takes over a persisted pending edit (resent unchanged, with its
 * clientId and seq), and starts the sync worker and the feed loop. Rejects with a FolioError when
 * the document cannot be read (404 for an unknown or deleted one). With `key` the document is an
 * encrypted one (docs/encryption.md): its text and title are decrypted, every line put in is
 * encrypted; a key that does not open it rejects with a WrongKeyError, a document that is not
 * encrypted with a NotEncryptedError.
 */
export async function openDocument(client: FolioClient, id: string, options: OpenOptions = {}): Promise<LiveDocument> {
  const stored = (await options.pendingStore?.load(id)) ?? undefined;
  const document = await client.getDocument(id);
  const codec = options.key !== undefined ? EncryptedCodec.forDocument(options.key, document) : PLAIN_CODEC;
  // A record sealed under another key (before a key change) cannot be opened: its edits are left out,
  // but its clientId's next seq is kept (a seq must never be sent again with another body).
  const persisted = codec.openPending(stored) ?? (stored && nothingPending(stored, document, codec));
  const clientId = options.clientId ?? persisted?.clientId ?? randomClientId();
  const live = new LiveDocumentImpl(client, id, document, clientId, options, persisted, codec);
  live.start();
  return live;
}
