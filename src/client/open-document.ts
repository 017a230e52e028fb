import type { FolioClient } from "./http.js";
import { LiveDocumentImpl } from "./live-document.js";
import type { LiveDocument, OpenOptions } from "./live-types.js";

/** A random client id: 128 bits from crypto.getRandomValues, as 32 hex digits. */
export function randomClientId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Opens a live document: reads it, takes over a persisted pending edit (resent unchanged, with its
 * clientId and seq), and starts the sync worker and the feed loop. Rejects with a FolioError when
 * the document cannot be read (404 for an unknown or deleted one).
 */
export async function openDocument(client: FolioClient, id: string, options: OpenOptions = {}): Promise<LiveDocument> {
  const persisted = (await options.pendingStore?.load(id)) ?? undefined;
  const clientId = options.clientId ?? persisted?.clientId ?? randomClientId();
  const document = await client.getDocument(id);
  const live = new LiveDocumentImpl(client, id, document, clientId, options, persisted);
  live.start();
  return live;
}
