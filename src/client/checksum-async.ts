import { checksumOf } from "../core/checksum.js";
import { normalizeLineEndings } from "../core/lines.js";

/**
 * The checksum of a text (core/checksum.ts), hashed by the platform's WebCrypto where it has one
 * (browsers in a secure context, Node): native and off the page's main work, for a base text the
 * answers did not name. Elsewhere (a page over plain HTTP to another host) the pure-JS hash.
 */
export async function checksumOfText(text: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return checksumOf(text);
  const digest = new Uint8Array(await subtle.digest("SHA-256", new TextEncoder().encode(normalizeLineEndings(text))));
  return `sha256:${Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
