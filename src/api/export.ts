import { Type } from "@sinclair/typebox";
import { EXPORT_FORMATS, type ExportFormat } from "../core/outline-formats.js";
import { problemDetailOn } from "./problem.js";
import { Int64 } from "./scalars.js";

// Export (docs/notation.md#export-and-import): a document's text, or a version's, as a file of one
// of the formats. A read: it writes no version.

export const ExportQuery = Type.Object({
  // One enum rather than a union of literals: a wrong value's 400 then lists the allowed ones.
  format: Type.Unsafe<ExportFormat>({
    type: "string",
    enum: [...EXPORT_FORMATS],
    description: "`markdown` (nested lists, GFM task items), `opml` (OPML 2.0) or `text` (the text as it is)",
    examples: ["markdown"],
    ...problemDetailOn("enum", `querystring.format: must be one of ${EXPORT_FORMATS.join(", ")}`),
  }),
  version: Type.Optional(Int64({ minimum: 1, description: "a version of the document's history (default: the current one)", examples: [3] })),
});
