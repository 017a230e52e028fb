import { createHash } from "node:crypto";
import { applyOps, rebaseOps, splitLines, validateOps, type LineOperation, type NormalizedOp } from "../../src/core/index.js";

/**
 * What a simulated editor knows of a document: a version and its lines. The checksum is computed
 * on first use and kept, so clients that share a state object hash it once. The lines may be given
 * as a function, computed on first use: a load generator that learns of many versions but patches
 * on few of them builds only the texts it needs.
 */
export class DocState {
  private sum: string | undefined;
  private known: readonly string[] | undefined;
  private compute: (() => readonly string[]) | undefined;

  constructor(
    readonly version: number,
    lines: readonly string[] | (() => readonly string[]),
  ) {
    if (typeof lines === "function") this.compute = lines;
    else this.known = lines;
  }

  static fromText(version: number, text: string): DocState {
    return new DocState(version, splitLines(text));
  }

  get lines(): readonly string[] {
    if (this.known === undefined) {
      this.known = this.compute!();
      this.compute = undefined;
    }
    return this.known;
  }

  /** `sha256:` of the LF text (docs/line-model.md#checksum). */
  get checksum(): string {
    this.sum ??= `sha256:${createHash("sha256").update(this.lines.join("\n"), "utf8").digest("hex")}`;
    return this.sum;
  }
}

/** Wire ops (as the service answers them) in the algebra's shape; throws on an invalid list. */
export function fromWire(ops: readonly LineOperation[]): NormalizedOp[] {
  const valid = validateOps(ops);
  if (!valid.ok) throw new Error(`the service sent invalid ops: ${valid.message}`);
  return valid.ops;
}

function apply(lines: readonly string[], ops: readonly NormalizedOp[]): string[] {
  const applied = applyOps(lines, ops);
  if (!applied.ok) throw new Error(`ops do not apply to the local text: ${applied.message}`);
  return applied.lines;
}

/**
 * The text after a patch's 200, as a real client computes it: the foreign ops the service reports
 * (`opsSinceBase`) on the base, then the client's own ops rebased over them.
 */
export function afterAccepted(base: DocState, mine: readonly NormalizedOp[], version: number, opsSinceBase: readonly LineOperation[]): DocState {
  if (opsSinceBase.length === 0) return new DocState(version, apply(base.lines, mine));
  const foreign = fromWire(opsSinceBase);
  const rebased = rebaseOps(foreign, mine);
  if (!rebased.ok) throw new Error("the service accepted a patch that overlaps the foreign ops it reports");
  return new DocState(version, apply(apply(base.lines, foreign), rebased.ops));
}

/** The body of a 200 of GET …/changes. */
export interface ChangeFeedBody {
  fromVersion?: number;
  currentVersion: number;
  ops?: LineOperation[];
  content?: string;
  events: { version: number; changeType: string; clientId?: string }[];
}

/** The text after a feed answer, from the state at the `since` the request carried. */
export function afterFeed(atSince: DocState, body: ChangeFeedBody): DocState {
  if (body.content !== undefined) return DocState.fromText(body.currentVersion, body.content);
  if (body.fromVersion !== atSince.version) throw new Error(`feed answered from ${body.fromVersion}, asked since ${atSince.version}`);
  return new DocState(body.currentVersion, apply(atSince.lines, fromWire(body.ops ?? [])));
}

/** A one-line replace in the algebra's shape and on the wire. */
export function replaceLine(index: number, line: string): { normalized: NormalizedOp[]; wire: LineOperation[] } {
  return {
    normalized: [{ index, count: 1, lines: [line] }],
    wire: [{ op: "replace", index, count: 1, lines: [line] }],
  };
}
