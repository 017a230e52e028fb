import { joinLines, splitLines } from "../../core/lines.js";
import { FolioError } from "../errors.js";
import { exportLocally, type ExportOptions } from "../export-calls.js";
import type { FolioClient } from "../http.js";
import type { Document, HistoryEntry } from "../types.js";
import { EncryptedCodec, UNREADABLE_TITLE } from "./codec.js";
import { parseTitle } from "./document-key.js";
import { WrongKeyError } from "./errors.js";

/**
 * Creates an encrypted document (docs/encryption.md): a new random salt, the title and every line
 * sealed under keys derived from `key` (see generateDocumentKey), in one POST, so version 1 is
 * already ciphertext. Resolves with the document as created, its title and content in plain text.
 */
export async function createEncryptedDocument(client: FolioClient, body: { title: string; content: string }, key: string): Promise<Document> {
  const codec = EncryptedCodec.fresh(key);
  const lines = splitLines(body.content);
  const created = await client.createDocument({ title: codec.encodeTitle(body.title), content: joinLines(codec.encodeLines(lines)) });
  return { ...created, title: body.title, content: joinLines(lines) };
}

/**
 * The document re-encrypted under `newKey` in one version (a PUT of the whole text, a new salt, every
 * line sealed afresh), checked against `expectedVersion` when given. Whoever holds only the old key
 * can no longer open the current version; the versions before stay sealed under the old key.
 * Resolves with the new version, in plain text.
 */
export async function changeDocumentKey(client: FolioClient, id: string, oldKey: string, newKey: string, expectedVersion?: number): Promise<Document> {
  const current = await client.getDocument(id);
  const plain = decryptDocument(EncryptedCodec.forDocument(oldKey, current), current);
  const codec = EncryptedCodec.fresh(newKey);
  const body = { title: codec.encodeTitle(plain.title), content: joinLines(codec.encodeLines(splitLines(plain.content))) };
  const replaced = await client.replaceDocument(id, { ...body, expectedVersion: expectedVersion ?? current.version });
  return { ...replaced, title: plain.title, content: plain.content };
}

/**
 * A client for the calls that carry whole texts, speaking plain text to its caller and ciphertext
 * to the service: getDocument, history, restore, createDocument, replaceDocument, renameDocument and
 * the read link's document and history. Exports are converted here from the plain text (the
 * service's export would convert ciphertext); a version is exported when the history lists it. Content patches and the feeds go through unchanged (a live
 * document opened with `{ key }` encodes them itself). History entries written under another key
 * (before a key change) show as unreadable; restoring one is refused with a WrongKeyError, since
 * the document would then no longer open with this key.
 */
export function withDocumentKey(client: FolioClient, key: string): FolioClient {
  const codecs = new Map<string, EncryptedCodec>();
  /** The codec of a text's salt (every version since a key change shares one, and so its memory of lines). */
  const codecOf = <T extends { title: string; content: string }>(entry: T): EncryptedCodec => {
    const salt = parseTitle(entry.title) ? entry.title.split(".")[1]! : "";
    let codec = codecs.get(salt);
    if (!codec) {
      codec = EncryptedCodec.forDocument(key, entry);
      codecs.set(salt, codec);
    }
    return codec;
  };
  const plain = <T extends { title: string; content: string }>(entry: T): T => decryptDocument(codecOf(entry), entry);
  const plainEntry = (entry: HistoryEntry): HistoryEntry => {
    try {
      return plain(entry);
    } catch {
      // Sealed under another key (or not encrypted at all): shown as unreadable, never as ciphertext.
      return unreadable(entry);
    }
  };
  const current = (id: string) => client.getDocument(id).then((document) => codecOf(document));
  /** The plain title and text of the document now, or of a version its history lists. */
  const snapshot = async (read: () => Promise<{ title: string; content: string; version: number }>, history: () => Promise<HistoryEntry[]>, where: string, options?: ExportOptions) => {
    const now = await read();
    if (options?.version === undefined || options.version === now.version) return plain(now);
    const entry = (await history()).find((candidate) => candidate.version === options.version);
    if (!entry) throw notInHistory(where, options.version);
    const opened = plainEntry(entry);
    if (opened.title === UNREADABLE_TITLE) throw new WrongKeyError(`version ${options.version} was written under another key`);
    return opened;
  };
  return {
    ...client,
    getDocument: async (id, signal) => plain(await client.getDocument(id, signal)),
    history: async (id) => (await client.history(id)).map(plainEntry),
    restore: async (id, version) => {
      if (version !== undefined) {
        const entry = (await client.history(id)).find((candidate) => candidate.version === version);
        if (entry && plainEntry(entry).title === UNREADABLE_TITLE) throw new WrongKeyError(`version ${version} was written under another key: restoring it would lock this link out`);
      }
      return plain(await client.restore(id, version));
    },
    createDocument: (body) => createEncryptedDocument(client, body, key),
    replaceDocument: async (id, body) => {
      const codec = await current(id);
      const sealed = { ...body, title: codec.encodeTitle(body.title), content: joinLines(codec.encodeLines(splitLines(body.content))) };
      return plain(await client.replaceDocument(id, sealed));
    },
    renameDocument: async (id, body, signal) => {
      const codec = await current(id);
      return plain(await client.renameDocument(id, { ...body, title: codec.encodeTitle(body.title) }, signal));
    },
    exportDocument: async (id, format, options) =>
      exportLocally(format, await snapshot(() => client.getDocument(id, options?.signal), () => client.history(id), `/api/v1/documents/${id}/export`, options)),
    read: {
      ...client.read,
      document: async (readId, signal) => plain(await client.read.document(readId, signal)),
      history: async (readId) => (await client.read.history(readId)).map(plainEntry),
      export: async (readId, format, options) =>
        exportLocally(format, await snapshot(() => client.read.document(readId, options?.signal), () => client.read.history(readId), `/api/v1/read/${readId}/export`, options)),
    },
  };
}

/** The 404 of an encrypted document's version that its history does not list (a sync version, or one compacted). */
function notInHistory(instance: string, version: number): FolioError {
  const detail = `version ${version} is not in the document's history, the only place its plain text can be read from`;
  return new FolioError(404, { type: "urn:folio:problem:not-found", title: "Not found", status: 404, detail, instance });
}

/** An entry the key does not open: its title the unreadable mark, no text (never its ciphertext). */
function unreadable(entry: HistoryEntry): HistoryEntry {
  return { ...entry, title: UNREADABLE_TITLE, content: "" };
}

/** A document or history entry with its title and content decrypted. */
export function decryptDocument<T extends { title: string; content: string }>(codec: EncryptedCodec, entry: T): T {
  return { ...entry, title: codec.decodeTitle(entry.title), content: joinLines(codec.decodeLines(splitLines(entry.content))) };
}
