import type { NormalizedOp } from "../../core/normalized-op.js";
import type { LineCodec } from "../line-codec.js";
import { keyBytes, MAX_TITLE_BYTES, newSalt, parseTitle, TITLE_PADDED_BYTES, wireTitle } from "./document-key.js";
import { NotEncryptedError, TitleTooLongError, WrongKeyError } from "./errors.js";
import { deriveKeys, open, seal, utf8Length, type DocumentKeys } from "./line-cipher.js";

/** What a line that does not authenticate under the link's key is shown as (never its ciphertext, never dropped). */
export const UNREADABLE_LINE = "\u26a0 [this line does not open with the link's key: it was written without it or changed]";
/** What a title that does not authenticate is shown as. */
export const UNREADABLE_TITLE = "\u26a0 [title does not open with the link's key]";
/** Decoded lines remembered per ciphertext; past this the memory starts over. */
const MEMO_LIMIT = 100_000;

/**
 * The codec of an encrypted document (docs/encryption.md): every line on its own is sealed with
 * XChaCha20-Poly1305 under the line key, the title under the title key, unsent local texts under
 * the local key, all bound to the document's salt. Decoding is remembered per ciphertext line, and
 * a line's ciphertext is made only when the line is put in: an unchanged line keeps its ciphertext.
 */
export class EncryptedCodec implements LineCodec {
  readonly encrypted = true;
  private readonly plainOf = new Map<string, string>();
  private readonly keys: DocumentKeys;

  constructor(
    key: string,
    readonly salt: Uint8Array,
  ) {
    this.keys = deriveKeys(keyBytes(key), salt);
  }

  /** The codec of a document as the service holds it (its title names the salt); rejects a wrong key. */
  static forDocument(key: string, document: { title: string; content: string }): EncryptedCodec {
    const parsed = parseTitle(document.title);
    if (!parsed) throw new NotEncryptedError("the document is not encrypted: its title is not in the encrypted format");
    const codec = new EncryptedCodec(key, parsed.salt);
    if (open(codec.keys.title, codec.keys.titleData, parsed.sealed) === undefined && !codec.anyLineOpens(document.content)) {
      throw new WrongKeyError("the link's key does not open this document");
    }
    return codec;
  }

  /** A codec with a new salt, for a new document or a new key. */
  static fresh(key: string): EncryptedCodec {
    return new EncryptedCodec(key, newSalt());
  }

  private anyLineOpens(content: string): boolean {
    return content.split("\n").some((line) => line !== "" && open(this.keys.line, this.keys.lineData, line) !== undefined);
  }

  decodeLine(wire: string): string {
    const known = this.plainOf.get(wire);
    if (known !== undefined) return known;
    const text = open(this.keys.line, this.keys.lineData, wire);
    // A line break inside a line would break the one-to-one lines: such a line is not accepted either.
    const plain = text === undefined || text.includes("\n") ? UNREADABLE_LINE : text;
    this.remember(wire, plain);
    return plain;
  }

  /** The one empty line of an emptied or new text is shown as it is: it holds nothing to protect. */
  decodeLines(wire: readonly string[]): string[] {
    if (wire.length === 1 && wire[0] === "") return [""];
    return wire.map((line) => this.decodeLine(line));
  }

  encodeLine(plain: string): string {
    const wire = seal(this.keys.line, this.keys.lineData, plain);
    this.remember(wire, plain);
    return wire;
  }

  encodeLines(plain: readonly string[]): string[] {
    return plain.map((line) => this.encodeLine(line));
  }

  encodeOps(ops: readonly NormalizedOp[]): NormalizedOp[] {
    return ops.map((op) => (op.lines.length === 0 ? op : { ...op, lines: op.lines.map((line) => this.encodeLine(line)) }));
  }

  decodeOps(ops: readonly NormalizedOp[]): NormalizedOp[] {
    return ops.map((op) => (op.lines.length === 0 ? op : { ...op, lines: op.lines.map((line) => this.decodeLine(line)) }));
  }

  decodeTitle(wire: string): string {
    const parsed = parseTitle(wire);
    const title = parsed ? open(this.keys.title, this.keys.titleData, parsed.sealed) : undefined;
    return title ?? UNREADABLE_TITLE;
  }

  encodeTitle(title: string): string {
    if (utf8Length(title) > MAX_TITLE_BYTES) throw new TitleTooLongError(`an encrypted document's title holds at most ${MAX_TITLE_BYTES} UTF-8 bytes`);
    return wireTitle(this.salt, seal(this.keys.title, this.keys.titleData, title, TITLE_PADDED_BYTES));
  }

  isUnreadable(text: string): boolean {
    return text === UNREADABLE_LINE || text === UNREADABLE_TITLE;
  }

  /** Padded to its length plus one byte: a store learns about the length of what is kept, as the service does of lines. */
  seal(text: string): string {
    return seal(this.keys.local, this.keys.localData, text, utf8Length(text) + 1);
  }

  open(sealed: string): string | undefined {
    return open(this.keys.local, this.keys.localData, sealed);
  }

  /** Padded to a bucket (line-cipher.ts, bucketOf): the service learns about the length of a name only as much. */
  sealPresence(text: string): string {
    return seal(this.keys.presence, this.keys.presenceData, text);
  }

  openPresence(sealed: string): string | undefined {
    return open(this.keys.presence, this.keys.presenceData, sealed);
  }

  private remember(wire: string, plain: string): void {
    if (this.plainOf.size >= MEMO_LIMIT) this.plainOf.clear();
    this.plainOf.set(wire, plain);
  }
}
