/**
 * The pure line algebra of Folio, shared by the service and browser clients: lines ⇄ text,
 * checksums, validation, apply, compose, diff and rebase of line operations, the bridge to the
 * character changes an editor makes, and the outline notation and its export and import (Markdown,
 * OPML, text). No I/O, no clock.
 */
export { INT32_MAX, LineOperationSchema, type LineOperation } from "./line-operation.js";
export { joinLines, normalizeLineEndings, splitLines } from "./lines.js";
export { CHECKSUM_PATTERN, checksumOf, pureSha256Hex, type Sha256Hex } from "./checksum.js";
export { isNoOp, normalizeOp, opEnd, toLineOperation, type NormalizeOpResult, type NormalizedOp } from "./normalized-op.js";
export { validateOps, type ValidateOpsResult } from "./validate-ops.js";
export { applyOps, type ApplyOpsResult } from "./apply-ops.js";
export { canonicalOps, isCanonical } from "./canonical-ops.js";
export { composeChain, composeOps } from "./compose-ops.js";
export { rebaseOps, type RebaseOverlap, type RebaseResult } from "./rebase-ops.js";
export { diffLines, type DiffLinesOptions } from "./diff-lines.js";
export { minimizeOps } from "./minimize-ops.js";
export { charChanges, charPieces, type CharPiece, type TextEdit } from "./char-diff.js";
export { changesOfLineOps, changesToLines, lineOpsOfChanges, textOfLines } from "./text-changes.js";
export { insertionRank, mapConcurrent, type MappedChanges } from "./concurrent-changes.js";
export { indentWidth, outlineDepths, parentLine, parseLine, subtreeEnd, TAB_WIDTH, type OutlineLine, type TicketKind, type TicketLink } from "./outline-notation.js";
export { canonicalOutline, DEFAULT_IMPORT_LIMITS, type ImportLimits, type ImportResult } from "./outline-text.js";
export { EXPORT_FORMATS, exportFileName, exportOutline, FORMATS, importFormatOf, importOutline, isExportFormat, type ExportFormat } from "./outline-formats.js";
