import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { fromBase64url, toBase64url } from "../../core/base64url.js";

/**
 * The primitives of encrypted documents (docs/encryption.md): XChaCha20-Poly1305 from @noble/ciphers
 * with a random 24-byte nonce per message, HKDF-SHA256 from @noble/hashes, and padding of every
 * plaintext to a bucket (ISO/IEC 7816-4: a 0x80 byte, then zeros). Nothing here is new cryptography.
 */
const NONCE_BYTES = 24;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The padded size of a plaintext of `bytes` bytes (its 0x80 marker included): 32, then powers of two up to 4 KiB, then whole 4 KiB. */
export function bucketOf(bytes: number): number {
  if (bytes <= 32) return 32;
  if (bytes <= 4096) return 2 ** Math.ceil(Math.log2(bytes));
  return Math.ceil(bytes / 4096) * 4096;
}

/** The keys of one document: one per use, from the link's key and the document's salt. */
export interface DocumentKeys {
  line: Uint8Array;
  title: Uint8Array;
  local: Uint8Array;
  /** Presence states (a cursor and a name), sealed for the service's presence list. */
  presence: Uint8Array;
  /** Associated data of the document's lines, title, sealed local texts and presence states: binds each to the document (its salt). */
  lineData: Uint8Array;
  titleData: Uint8Array;
  localData: Uint8Array;
  presenceData: Uint8Array;
}

export function deriveKeys(linkKey: Uint8Array, salt: Uint8Array): DocumentKeys {
  const key = (use: string) => hkdf(sha256, linkKey, salt, encoder.encode(`folio-e2e/v1/${use}`), 32);
  const data = (use: string) => encoder.encode(`folio-e2e/v1/${use}/${toBase64url(salt)}`);
  return {
    line: key("line"),
    title: key("title"),
    local: key("local"),
    presence: key("presence"),
    lineData: data("line"),
    titleData: data("title"),
    localData: data("local"),
    presenceData: data("presence"),
  };
}

/** Encrypts a text padded to `size` bytes (at least its UTF-8 length + 1): base64url of nonce ‖ ciphertext ‖ tag. */
export function seal(key: Uint8Array, data: Uint8Array, text: string, size?: number): string {
  const bytes = encoder.encode(text);
  const padded = new Uint8Array(size ?? bucketOf(bytes.length + 1));
  if (padded.length <= bytes.length) throw new RangeError(`${bytes.length} bytes do not fit a ${padded.length}-byte padded plaintext`);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const nonce = globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const sealed = xchacha20poly1305(key, nonce, data).encrypt(padded);
  const out = new Uint8Array(NONCE_BYTES + sealed.length);
  out.set(nonce);
  out.set(sealed, NONCE_BYTES);
  return toBase64url(out);
}

/** The text of a sealed one; `undefined` when it is malformed or does not authenticate under this key and data. */
export function open(key: Uint8Array, data: Uint8Array, sealed: string): string | undefined {
  const bytes = fromBase64url(sealed);
  if (!bytes || bytes.length < NONCE_BYTES + TAG_BYTES + 1) return undefined;
  let padded: Uint8Array;
  try {
    padded = xchacha20poly1305(key, bytes.subarray(0, NONCE_BYTES), data).decrypt(bytes.subarray(NONCE_BYTES));
  } catch {
    return undefined;
  }
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0 || padded[end] !== 0x80) return undefined;
  try {
    return decoder.decode(padded.subarray(0, end));
  } catch {
    return undefined;
  }
}

/** The bytes a sealed text of `size` padded bytes takes, as base64url characters. */
export function sealedLength(size: number): number {
  return Math.ceil(((NONCE_BYTES + size + TAG_BYTES) * 4) / 3);
}

/** The UTF-8 length of a text. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}
