import type { ChangeSet, Text } from "@codemirror/state";
import { applyRebased } from "../core/rebuild-rule.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import { changesOfLineOps, changesToLines, textOfLines, type AlignHints } from "../core/text-changes.js";
import { splitLines } from "../core/lines.js";
import type { LineCodec } from "./line-codec.js";

/**
 * The service's text at one version, as a live or read-only document holds it: the service's lines
 * (`wire`: what its ops, checksums and the rebuild rule are about; an encrypted document's
 * ciphertext lines) and the shown text (`text`: the same lines decoded, as an editor's `Text`). Line
 * k of one is line k of the other. Immutable: each change makes a new one, sharing what it keeps.
 */
export interface ServiceText {
  readonly version: number;
  readonly wire: readonly string[];
  readonly text: Text;
  /** `sha256:` of the wire text, once known (an answer carried it, or it was computed). */
  readonly checksum?: string;
}

/** The service's text of a document's `content` at `version`. */
export function serviceTextOf(codec: LineCodec, version: number, content: string, checksum?: string): ServiceText {
  return withWire(codec, version, splitLines(content), checksum);
}

/** The service's text of `wire` lines. */
export function withWire(codec: LineCodec, version: number, wire: readonly string[], checksum?: string): ServiceText {
  const lines = wire.length > 0 ? wire : [""];
  return { version, wire: lines, text: textOfLines(codec.decodeLines(lines)), ...(checksum !== undefined ? { checksum } : {}) };
}

/** A text moved on by the service's ops (against its wire lines), with the same change in characters. */
export interface MovedText {
  readonly next: ServiceText;
  /** The change of the shown text, diffed by characters inside the lines the ops touch. */
  readonly changes: ChangeSet;
}

/**
 * The text after the service's `ops` (valid, against `from.wire`), at `version`. Undefined when they
 * do not apply (a range outside the text). Costs the ops' lines, and a copy of the line array.
 * `hints` choose between readings of the ops that give the same text (see changesOfLineOps).
 */
export function moveBy(codec: LineCodec, from: ServiceText, ops: readonly NormalizedOp[], version: number, checksum?: string, hints?: AlignHints): MovedText | undefined {
  const applied = applyRebased(from.wire, ops);
  if (!applied.ok) return undefined;
  const changes = changesOfLineOps(from.text, codec.decodeOps(applied.ops), undefined, undefined, hints);
  const text = changes.apply(from.text);
  return { next: { version, wire: applied.lines, text, ...(checksum !== undefined ? { checksum } : {}) }, changes };
}

/** The text replaced by the service's whole `wire` lines (a reload, a full feed answer): the change is diffed. */
export function replaceBy(codec: LineCodec, from: ServiceText, wire: readonly string[], version: number, checksum?: string): MovedText {
  const next = withWire(codec, version, wire, checksum);
  return { next, changes: changesToLines(from.text, next.text.toJSON()) };
}
