import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { normalizeLineEndings } from "./lines.js";

/** Lower-case hex SHA-256 of the UTF-8 bytes of a string. */
export type Sha256Hex = (text: string) => string;

/**
 * A {@link Sha256Hex} in plain JavaScript, so that a browser computes the same checksum as the service.
 * The service may pass a faster native hasher to {@link checksumOf}; both must agree byte for byte
 * (lone surrogates become U+FFFD in both, as TextEncoder and Node's UTF-8 encoder both do).
 */
export const pureSha256Hex: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

/** The JSON-schema `pattern` of a checksum: `sha256:` and 64 lower-case hex digits. */
export const CHECKSUM_PATTERN = "^sha256:[0-9a-f]{64}$";

/**
 * The checksum (docs/line-model.md#checksum): `sha256:` and the hex SHA-256 of the text with LF line endings, so a
 * CRLF text and its LF form have the same checksum.
 */
export function checksumOf(text: string, sha256Hex: Sha256Hex = pureSha256Hex): string {
  return `sha256:${sha256Hex(normalizeLineEndings(text))}`;
}
