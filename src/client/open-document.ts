import { EncryptedCodec } from "./encryption/codec.js";
import type { FolioClient } from "./http.js";
import { PLAIN_CODEC } from "./line-codec.js";
import { LiveDocumentImpl } from "./live-document.js";
import type { LiveDocument, OpenOptions } from "./live-types.js";
import { fromEarlierRecord, isEarlierRecord } from "./earlier-record.js";
import { replay } from "./pending-log.js";
import { serviceTextOf } from "./service-text.js";
import { startSync } from "./sync-text.js";

/** A random client id: 128 bits from crypto.getRandomValues, as 32 hex digits. */
export function randomClientId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Opens a live document: reads it, takes over what its PendingStore kept (the unconfirmed edits,
 * and the patch in flight, resent unchanged with its clientId and seq), and starts the sync worker
 * and the feed loop. Rejects with a FolioError when the document cannot be read (404 for an unknown
 * or deleted one). With `key` the document is an encrypted one (docs/encryption.md): its text and
 * title are decrypted, every line put in is encrypted; a key that does not open it rejects with a
 * WrongKeyError, a document that is not encrypted with a NotEncryptedError.
 */
export async function openDocument(client: FolioClient, id: string, options: OpenOptions = {}): Promise<LiveDocument> {
  const stored = (await options.pendingStore?.load(id)) ?? undefined;
  const document = await client.getDocument(id);
  const codec = options.key !== undefined ? EncryptedCodec.forDocument(options.key, document) : PLAIN_CODEC;
  const clientId = options.clientId ?? stored?.clientId ?? randomClientId();
  const own = stored?.clientId === clientId ? stored : undefined;
  // A record that cannot be opened (sealed under another key, before a key change) is left out,
  // but the seqs it may have used are never sent again with another body.
  const kept = own ? (isEarlierRecord(own) ? fromEarlierRecord(own, codec) : replay(own, codec)) : undefined;
  const nextSeq = kept?.nextSeq ?? (own ? own.nextSeq + (isEarlierRecord(own) ? 0 : own.entries.length) : 1);
  const sync = kept?.sync ?? startSync(serviceTextOf(codec, document.version, document.content));
  const live = new LiveDocumentImpl(client, id, document, clientId, options, { sync, nextSeq }, codec);
  await live.start(own !== undefined);
  return live;
}
