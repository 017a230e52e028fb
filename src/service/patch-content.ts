import { createHash } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import type { ContentPatchRequest } from "../api/content.js";
import { composeChain } from "../core/compose-ops.js";
import { joinLines } from "../core/lines.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import { applyRebased, rebasePatch } from "../core/rebuild-rule.js";
import { validateOps } from "../core/validate-ops.js";
import type { DocumentRecord, PatchReceipt, ShiftedOver } from "../storage/store.js";
import type { Clock } from "./clock.js";
import type { ContentLimit } from "./content-limit.js";
import { rebuildText } from "./document-text.js";
import { documentNotFound } from "./documents.js";
import type { DocumentWriter } from "./document-writer.js";
import type { PatchResult, ServiceEvents } from "./observer.js";
import { ServiceError } from "./service-error.js";
import type { WorkingDocument } from "./working-document.js";

/**
 * How much of the versions' ops since a stale base a patch is rebased over at most (the UTF-8 bytes
 * of their stored JSON, or the characters of the ops held in memory): past it, 422 `rebase-too-large`
 * before anything is composed. Composing and rebasing cost time in the size of those ops, and a
 * stale patch over a few versions that each rewrote a big document stalled every other request
 * for seconds (docs/api.md, "Bounds"). The client reloads, as after any 422.
 */
export const REBASE_BYTES = 1024 * 1024;

/** A content patch as the client sends it: the request schema's type (the body is already shape-checked by it). */
export type ContentPatch = Static<typeof ContentPatchRequest>;

/** The outcome of a patch: accepted (a new version, or the stored result of a repeat) or a true conflict. */
export type PatchOutcome =
  | { kind: "accepted"; version: number; opsSinceBase: NormalizedOp[]; checksum: string }
  | { kind: "conflict"; currentVersion: number; opsSinceBase: NormalizedOp[] };

/** How a patch ended, for the events: the outcome and, for an accepted one, how it was accepted. */
interface Decision {
  outcome: PatchOutcome;
  result: PatchResult;
}

/**
 * The write pipeline of live editing, top to bottom in {@link decide}: validate → receipt (a repeat
 * returns the stored answer) → check the base → the foreign ops since it → rebase over them → apply →
 * size limit → commit the version → receipt → answer. The steps from the receipt on run in the
 * document's writer: on the head as the batch's earlier patches left it, committed with them.
 */
export class ContentPatcher {
  constructor(
    private readonly options: { writer: DocumentWriter; clock: Clock; contentLimit: ContentLimit; events?: ServiceEvents },
  ) {}

  async patch(id: string, patch: ContentPatch): Promise<PatchOutcome> {
    const events = this.options.events;
    if (!events?.observed) return (await this.decide(id, patch)).outcome;
    try {
      const { outcome, result } = await this.decide(id, patch);
      events.patch(result);
      return outcome;
    } catch (error) {
      events.patch(error instanceof ServiceError ? error.code : "failed");
      throw error;
    }
  }

  private async decide(id: string, patch: ContentPatch): Promise<Decision> {
    const submitted = checkOps(patch);
    const requestHash = hashRequest(patch, submitted);

    return this.options.writer.submit(id, async (doc): Promise<Decision> => {
      // The receipt first: a repeat gets its stored answer even after the document was deleted.
      const receipt = await doc.receipt(patch.clientId, patch.seq);
      if (receipt) return { outcome: await repeated(doc, receipt, requestHash, submitted), result: "repeat" };
      const head = doc.document;
      if (!head || head.deleted) throw documentNotFound(id);
      const baseCreatedAt = await checkBase(doc, head, patch);

      if (patch.baseVersion !== head.version && (await doc.opsSizeAfter(patch.baseVersion)) > REBASE_BYTES) {
        throw new ServiceError(
          "rebase-too-large",
          `the versions since base ${patch.baseVersion} change more than ${REBASE_BYTES} bytes of ops; reload the document and send the change on its current version`,
        );
      }
      const foreign = patch.baseVersion === head.version ? [] : await doc.foreignOps.since(patch.baseVersion, head.version, doc);
      let ops = submitted;
      let opsSinceBase = foreign;
      let shiftedOver: ShiftedOver | undefined;
      if (foreign.length > 0) {
        checkRange(submitted, (await doc.lines()).length - lineDelta(foreign));
        // The rebuild rule (docs/editing-protocol.md), shared with clients through src/core: a
        // client repeats it on the answer's opsSinceBase and must reach this very text.
        let rebased = rebasePatch(foreign, submitted);
        // Decided from the versions alone: the receipt may keep where to decide it again instead of
        // the answer's ops, tens of KB for an author among hundreds (docs/architecture.md, "Receipts").
        if (rebased.ok && doc.mayReferToVersionsSince(baseCreatedAt)) shiftedOver = { base: patch.baseVersion, through: head.version };
        if (!rebased.ok && rebased.needsBase) {
          // The rule judges ranges, not text: a hunk that rewrites lines with their own content, or
          // foreign versions that undid each other, look like overlaps where a three-way merge of
          // the texts is clean. Only on this rare path is the base text rebuilt to tell them apart.
          const base = await rebuildText(doc, patch.baseVersion);
          if (!base) throw new ServiceError("base-unavailable", `the text of base version ${patch.baseVersion} cannot be rebuilt; reload the document`);
          rebased = rebasePatch(foreign, submitted, base.lines);
        }
        if (!rebased.ok) {
          const conflict: PatchOutcome = { kind: "conflict", currentVersion: head.version, opsSinceBase: rebased.needsBase ? foreign : rebased.opsSinceBase };
          return { outcome: conflict, result: "conflict" };
        }
        ops = rebased.ops;
        opsSinceBase = rebased.opsSinceBase;
      }

      const applied = applyRebased(await doc.lines(), ops);
      if (!applied.ok) throw new ServiceError("range-outside-text", applied.message);

      let version = head.version;
      let checksum = head.checksum;
      if (applied.ops.length > 0 || patch.milestone === true) {
        const text = joinLines(applied.lines);
        this.options.contentLimit.check(text, "the patched content");
        const record = await doc.commit({
          changeType: "UPDATED",
          milestone: patch.milestone === true,
          title: head.title,
          lines: applied.lines,
          text,
          ops: applied.ops,
          deleted: false,
          ...(patch.clientId !== undefined ? { clientId: patch.clientId } : {}),
          ...(patch.displayName !== undefined ? { displayName: patch.displayName } : {}),
        });
        version = record.version;
        checksum = record.checksum;
      }
      // Every submitted change was already made by a foreign version: nothing new to record, but the
      // receipt keeps the answer so that a resend gets the same one.
      doc.putReceipt(receiptOf(id, patch, requestHash, version, opsSinceBase, shiftedOver, this.options.clock.now()));
      return { outcome: { kind: "accepted", version, opsSinceBase, checksum }, result: foreign.length > 0 ? "shifted" : "applied" };
    }, { receipt: { clientId: patch.clientId, seq: patch.seq } });
  }
}

/**
 * Checks the patch's base: it exists, its ops are kept (the versions after it can be composed), and
 * the checksum proves its text. Returns when the base was made.
 */
async function checkBase(doc: WorkingDocument, head: DocumentRecord, patch: ContentPatch): Promise<number> {
  const base = patch.baseVersion;
  if (base > head.version || base < 1) {
    throw new ServiceError("base-unavailable", `base version ${base} does not exist; the current version is ${head.version}`);
  }
  if (base === head.version) {
    if (patch.checksum !== head.checksum) throw checksumMismatch(base);
    return head.updatedAt;
  }
  const record = await doc.version(base);
  if (!record || record.ops === null) throw new ServiceError("base-unavailable", `base version ${base} was compacted; reload the document`);
  if (patch.checksum !== record.checksum) throw checksumMismatch(base);
  return record.createdAt;
}

function checkOps(patch: ContentPatch): NormalizedOp[] {
  const valid = validateOps(patch.ops);
  if (!valid.ok) throw new ServiceError("invalid-request", valid.message);
  if (valid.ops.length === 0 && patch.milestone !== true) {
    throw new ServiceError("invalid-request", "ops must not be empty unless milestone is true");
  }
  for (const op of patch.ops) for (const line of op.lines ?? []) {
    if (!line.isWellFormed()) throw new ServiceError("invalid-request", "a line is not well-formed Unicode (a lone surrogate)");
  }
  // The stores keep the id as UTF-8, where every lone surrogate becomes U+FFFD: two such ids would
  // share one receipt key, and a resend would not find the receipt its patch stored.
  if (!patch.clientId.isWellFormed()) throw new ServiceError("invalid-request", "clientId is not well-formed Unicode (a lone surrogate)");
  if (patch.displayName !== undefined && !patch.displayName.isWellFormed()) {
    throw new ServiceError("invalid-request", "displayName is not well-formed Unicode (a lone surrogate)");
  }
  return valid.ops;
}

function checkRange(ops: readonly NormalizedOp[], length: number): void {
  for (const op of ops) {
    if (op.index + op.count > length || op.index > length) {
      throw new ServiceError("range-outside-text", `op at index ${op.index} with count ${op.count} is outside the base text of ${length} lines`);
    }
  }
}

function lineDelta(ops: readonly NormalizedOp[]): number {
  return ops.reduce((delta, op) => delta + op.lines.length - op.count, 0);
}

function checksumMismatch(base: number): ServiceError {
  return new ServiceError("checksum-mismatch", `checksum does not match the text of base version ${base}; reload the document`);
}

/** A digest of everything in the body but the (clientId, seq) key, so a changed resend is recognized. */
function hashRequest(patch: ContentPatch, ops: readonly NormalizedOp[]): string {
  const canonical = JSON.stringify([patch.baseVersion, patch.checksum, patch.displayName ?? null, patch.milestone === true, ops]);
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

async function repeated(doc: WorkingDocument, receipt: PatchReceipt, requestHash: string, submitted: readonly NormalizedOp[]): Promise<PatchOutcome> {
  if (receipt.requestHash !== requestHash) {
    throw new ServiceError("seq-reused", `seq ${receipt.seq} of client ${receipt.clientId} was already used for a different patch`);
  }
  // The checksum of the text the patch led to is the one of the version the receipt names: version
  // records are never deleted (compaction drops only their ops), so a repeat answers it too.
  const checksum = (await doc.version(receipt.version))?.checksum;
  if (checksum === undefined) {
    // Cannot happen while version records are kept; should it, the client reloads and finds its change there.
    throw new ServiceError("base-unavailable", `the answer to seq ${receipt.seq} of client ${receipt.clientId} cannot be given again; reload the document`);
  }
  const opsSinceBase = receipt.opsSinceBase ?? (await shiftedAgain(doc, receipt, submitted));
  return { kind: "accepted", version: receipt.version, opsSinceBase, checksum };
}

/**
 * The answer of a receipt that kept only the versions its patch was shifted over: the same patch
 * (its request hash matched) rebased over their composition again, which is the answer it got,
 * since composing is deterministic and a composition's result does not depend on how the chain was
 * grouped (docs/architecture.md, "Receipts"). Compaction keeps those versions' ops while the receipt lives.
 */
async function shiftedAgain(doc: WorkingDocument, receipt: PatchReceipt, submitted: readonly NormalizedOp[]): Promise<NormalizedOp[]> {
  const shifted = receipt.shiftedOver;
  const versions = shifted ? await doc.versions(shifted.base, shifted.through) : [];
  const chain = versions.flatMap((record) => (record.ops === null ? [] : [record.ops]));
  const rebased = shifted && chain.length === shifted.through - shifted.base ? rebasePatch(composeChain(chain), submitted) : undefined;
  if (!rebased?.ok) {
    throw new ServiceError("base-unavailable", `the answer to seq ${receipt.seq} of client ${receipt.clientId} cannot be composed again; reload the document`);
  }
  return rebased.opsSinceBase;
}

function receiptOf(
  id: string,
  patch: ContentPatch,
  requestHash: string,
  version: number,
  foreign: NormalizedOp[],
  shiftedOver: ShiftedOver | undefined,
  now: number,
): PatchReceipt {
  const receipt: PatchReceipt = { documentId: id, clientId: patch.clientId, seq: patch.seq, requestHash, version, opsSinceBase: foreign, createdAt: now };
  if (shiftedOver) receipt.shiftedOver = shiftedOver;
  return receipt;
}
