/**
 * The primitives of encrypted documents against crafted input (docs/encryption.md, "Formats"): what
 * a hostile service or a writer without the key can put in a line or a title. No service: the
 * codec and the cipher alone.
 */
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { expect, it } from "vitest";
import { fromBase64url, toBase64url } from "../../src/core/base64url.js";
import { EncryptedCodec, UNREADABLE_LINE, UNREADABLE_TITLE } from "../../src/client/encryption/codec.js";
import { generateDocumentKey, keyBytes, newSalt, parseTitle } from "../../src/client/encryption/document-key.js";
import { deriveKeys, open, seal } from "../../src/client/encryption/line-cipher.js";

/** A properly sealed message whose plaintext is exactly `padded` (any bytes, padding or not). */
function sealRaw(key: Uint8Array, data: Uint8Array, padded: Uint8Array): string {
  const nonce = new Uint8Array(24).fill(7);
  const sealed = xchacha20poly1305(key, nonce, data).encrypt(padded);
  return toBase64url(new Uint8Array([...nonce, ...sealed]));
}

it("opens only what was sealed for this document and this use: another salt, a title as a line or a line as a title do not authenticate", () => {
  const key = generateDocumentKey();
  const a = EncryptedCodec.fresh(key);
  const b = EncryptedCodec.fresh(key);
  const line = a.encodeLine("a secret line");
  expect(a.decodeLines([line])).toEqual(["a secret line"]);
  // The same link key on another document (another salt): neither its lines nor its title open.
  expect(b.decodeLines([line])).toEqual([UNREADABLE_LINE]);
  const titleOfA = a.encodeTitle("Plan");
  expect(b.decodeTitle(titleOfA)).toBe(UNREADABLE_TITLE);
  // Another document's title carrying this document's salt: still not this document's title.
  expect(a.decodeTitle(`e1.${toBase64url(a.salt)}.${parseTitle(b.encodeTitle("Plan"))!.sealed}`)).toBe(UNREADABLE_TITLE);
  // A title's sealed part put in as a line, and a line (padded to the title's size) as the title.
  const fresh = EncryptedCodec.fresh(key);
  expect(fresh.decodeLines([parseTitle(fresh.encodeTitle("Plan"))!.sealed, "x"])).toEqual([UNREADABLE_LINE, UNREADABLE_LINE]);
  const keys = deriveKeys(keyBytes(key), fresh.salt);
  const lineAsTitle = seal(keys.line, keys.lineData, "Plan", 131);
  expect(fresh.decodeTitle(`e1.${toBase64url(fresh.salt)}.${lineAsTitle}`)).toBe(UNREADABLE_TITLE);
  // Unsent local texts are sealed under their own key: a line does not open as one, nor one as a line.
  expect(fresh.open(fresh.encodeLine("typed"))).toBeUndefined();
  const local = fresh.seal("typed");
  expect(fresh.open(local)).toBe("typed");
  expect(fresh.decodeLines([local, "x"])[0]).toBe(UNREADABLE_LINE);
});

it("takes padding apart unambiguously: the last 0x80 before the zeros ends the text, and authentic but malformed plaintexts are refused", () => {
  const keys = deriveKeys(keyBytes(generateDocumentKey()), newSalt());
  // Texts whose own bytes look like padding: NUL at the end, a 0x80 continuation byte last (À is C3 80), a text that fills a bucket's 31 bytes.
  for (const text of ["", "abc\u0000", "\u0000\u0000", "À", "ÀÀ\u0000À", "x".repeat(31), "x".repeat(32), "€".repeat(20)]) {
    expect(open(keys.line, keys.lineData, seal(keys.line, keys.lineData, text))).toBe(text);
  }
  const raw = (bytes: number[], size = 32) => {
    const padded = new Uint8Array(size);
    padded.set(bytes);
    return open(keys.line, keys.lineData, sealRaw(keys.line, keys.lineData, padded));
  };
  expect(raw([0x61, 0x80])).toBe("a");
  expect(raw([0x61])).toBeUndefined(); // no 0x80: all zeros after the text
  expect(raw([])).toBeUndefined(); // nothing but zeros
  expect(raw([0x61, 0x80, 0x01])).toBeUndefined(); // a byte after the padding's zeros start
  expect(raw([0xc3, 0x80, 0x80])).toBe("À");
  expect(raw([0xc3, 0x80])).toBeUndefined(); // the 0x80 of À taken as the padding leaves a broken UTF-8 sequence
  expect(raw([0xff, 0x80])).toBeUndefined(); // not UTF-8
  expect(raw([0x80], 1)).toBe("");
  // A line break inside a line would break the line-for-line mapping: shown as unreadable.
  const key = generateDocumentKey();
  const codec = EncryptedCodec.fresh(key);
  const own = deriveKeys(keyBytes(key), codec.salt);
  expect(codec.decodeLines([seal(own.line, own.lineData, "one\ntwo"), codec.encodeLine("three")])).toEqual([UNREADABLE_LINE, "three"]);
});

it("decodes base64url strictly: one text per byte string, nothing outside the alphabet, no padding characters", () => {
  const bytes = new Uint8Array([0xfb, 0xff, 0x00, 0x01]);
  expect(toBase64url(bytes)).toBe("-_8AAQ");
  expect(fromBase64url("-_8AAQ")).toEqual(bytes);
  for (const text of ["-_8AAR", "-_8AAQ==", "+/8AAQ", "-_8A AQ", "-_8AA", "-_8AAQ\n", "-_8AAQ\u00e9", "-_8AAQ\u{1f600}"]) expect(fromBase64url(text)).toBeUndefined();
  // A sealed line whose text differs only in the unused low bits of its last character does not open.
  const keys = deriveKeys(keyBytes(generateDocumentKey()), newSalt());
  // 24 + 33 + 16 = 73 bytes: 98 characters, the last one with 4 unused bits.
  const sealed = seal(keys.line, keys.lineData, "x", 33);
  expect(open(keys.line, keys.lineData, sealed)).toBe("x");
  const last = sealed.at(-1)!;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const twin = sealed.slice(0, -1) + alphabet[alphabet.indexOf(last) + 1]!;
  expect(open(keys.line, keys.lineData, twin)).toBeUndefined();
});

it("takes only keys of 128 to 512 bits, and never puts the key in an error", () => {
  const short = toBase64url(new Uint8Array(15));
  for (const key of ["", short, toBase64url(new Uint8Array(65)), "not a key!", `${generateDocumentKey()}=`]) {
    let thrown: unknown;
    try {
      keyBytes(key);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).name).toBe("WrongKeyError");
    if (key !== "") expect((thrown as Error).message).not.toContain(key);
  }
  expect(keyBytes(toBase64url(new Uint8Array(16)))).toHaveLength(16);
});
