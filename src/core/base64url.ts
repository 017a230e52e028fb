/**
 * Base64url without padding (RFC 4648 §5): the alphabet of URL fragments and of the ciphertext lines
 * of encrypted documents (docs/encryption.md). Pure, for browsers and Node alike.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Map<string, number>([...ALPHABET].map((char, value) => [char, value]));

export function toBase64url(bytes: Uint8Array): string {
  let out = "";
  let k = 0;
  for (; k + 2 < bytes.length; k += 3) {
    const n = (bytes[k]! << 16) | (bytes[k + 1]! << 8) | bytes[k + 2]!;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - k;
  if (rest === 1) {
    const n = bytes[k]! << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[k]! << 16) | (bytes[k + 1]! << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

/** The bytes of a base64url text without padding; `undefined` for any other character or an impossible length. */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const char of text) {
    const digit = VALUES.get(char);
    if (digit === undefined) return undefined;
    value = (value << 6) | digit;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (value >> bits) & 255;
    }
  }
  // The unused low bits of the last character must be zero: one text per byte string.
  if ((value & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}
