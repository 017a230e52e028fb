import { Type } from "@sinclair/typebox";
import { CHECKSUM_PATTERN } from "../core/checksum.js";
import { LineOperationSchema } from "../core/line-operation.js";
import { problemDetailOn } from "./problem.js";
import { Int64 } from "./scalars.js";

const int64 = (description: string, minimum = 0) => Int64({ minimum, description });

/**
 * What JSON Schema cannot say is said in words: the order of a list (sorted by index, each op ending
 * at or before the next one's start, at most one insert at an index and before a replace or delete
 * starting there), the fields each kind needs, and lines without `\n` or `\r`. The service checks
 * them (400, src/core/validate-ops.ts); docs/openapi.md says why the schema does not.
 */
const opsDescription =
  "the diff against baseVersion: sorted by index, each op ending at or before the next one's start; at most one insert at an index, " +
  "and it comes before a replace or delete starting there; empty only with `milestone: true`. Otherwise 400.";

export const ContentPatchRequest = Type.Object(
  {
    baseVersion: int64("version the diff was built against"),
    checksum: Type.String({ pattern: CHECKSUM_PATTERN, description: "`sha256:<hex>` of the complete base text with LF line endings" }),
    clientId: Type.String({ minLength: 1, maxLength: 64, description: "random pseudonymous client identifier" }),
    seq: int64("running number of this client; makes the call repeatable"),
    displayName: Type.Optional(Type.String({ maxLength: 64, description: "unverified claim" })),
    milestone: Type.Optional(Type.Boolean({ description: "true writes a user-visible state; allows an empty ops list" })),
    ops: Type.Array(LineOperationSchema, { maxItems: 100_000, description: opsDescription }),
  },
  {
    title: "ContentPatchRequest",
    // Inside allOf, so that generators read it as a further condition on the object (TypeScript:
    // an intersection), not as alternatives to it.
    allOf: [
      {
        description: "an empty ops list needs `milestone: true`",
        anyOf: [{ required: ["milestone"], properties: { milestone: { enum: [true] } } }, { properties: { ops: { minItems: 1 } } }],
        ...problemDetailOn("anyOf", "ops must not be empty unless milestone is true"),
      },
    ],
  },
);

export const ContentPatchResult = Type.Object(
  {
    version: int64("new document version", 1),
    opsSinceBase: Type.Array(LineOperationSchema, { description: "empty if the base was current; otherwise the foreign ops the submitted ones were shifted by" }),
    checksum: Type.String({
      pattern: CHECKSUM_PATTERN,
      description:
        "`sha256:<hex>` of the text after the patch, in the request checksum's format: a client rebuilds that text by the rebuild rule (docs/editing-protocol.md) and reloads when its checksum differs",
    }),
  },
  { title: "ContentPatchResult" },
);

export const ContentConflict = Type.Object(
  {
    currentVersion: int64("the document's version now", 1),
    opsSinceBase: Type.Array(LineOperationSchema, { description: "diff from the submitted base to the current version" }),
  },
  { title: "ContentConflict", description: "a true overlap: nothing was written; the client takes the foreign version or forces its own" },
);
