import { fromBase64url, toBase64url } from "../../core/base64url.js";
import { sealedLength } from "./line-cipher.js";
import { WrongKeyError } from "./errors.js";

/**
 * The link's key and the encrypted title format (docs/encryption.md). The title of an encrypted
 * document is `e1.<salt>.<sealed title>`: the format's version, the document's random 128-bit salt
 * (the associated data every line and the title are bound to, readable by whoever holds the edit or
 * the read link) and the title, padded to one fixed size so that its length is hidden. That format
 * is how a page knows a document is encrypted.
 */
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** The padded plaintext of every title: 131 bytes, so that the whole title is 254 characters, within the service's 255. */
export const TITLE_PADDED_BYTES = 131;
/** The longest plain title, in UTF-8 bytes (the padding takes at least one byte). */
export const MAX_TITLE_BYTES = TITLE_PADDED_BYTES - 1;
export const TITLE_PREFIX = "e1.";
const TITLE_FORMAT = new RegExp(`^e1\\.([A-Za-z0-9_-]{22})\\.([A-Za-z0-9_-]{${sealedLength(TITLE_PADDED_BYTES)}})$`);

/** A new random 256-bit document key as base64url text (43 characters), for a link's fragment `#key=`. */
export function generateDocumentKey(): string {
  return toBase64url(globalThis.crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
}

/** The bytes of a link's key; a WrongKeyError when the text is not base64url of 16 to 64 bytes. */
export function keyBytes(key: string): Uint8Array {
  const bytes = fromBase64url(key);
  if (!bytes || bytes.length < 16 || bytes.length > 64) throw new WrongKeyError("the link's key is malformed: it must be base64url text of 16 to 64 bytes");
  return bytes;
}

/** A new random document salt. */
export function newSalt(): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(SALT_BYTES));
}

/** The salt and sealed title of an encrypted document's title; `undefined` for any other title. */
export function parseTitle(title: string): { salt: Uint8Array; sealed: string } | undefined {
  const match = TITLE_FORMAT.exec(title);
  const salt = match ? fromBase64url(match[1]!) : undefined;
  return match && salt ? { salt, sealed: match[2]! } : undefined;
}

/** True when a document (its title, as the service holds it) is encrypted. */
export function isEncryptedDocument(document: { title: string }): boolean {
  return parseTitle(document.title) !== undefined;
}

export function wireTitle(salt: Uint8Array, sealed: string): string {
  return `${TITLE_PREFIX}${toBase64url(salt)}.${sealed}`;
}
