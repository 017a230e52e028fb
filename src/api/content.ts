import { Type } from "@sinclair/typebox";
import { CHECKSUM_PATTERN } from "../core/checksum.js";
import { LineOperationSchema } from "../core/line-operation.js";
import { Int64 } from "./scalars.js";

const int64 = (description: string, minimum = 0) => Int64({ minimum, description });

export const ContentPatchRequest = Type.Object(
  {
    baseVersion: int64("version the diff was built against"),
    checksum: Type.String({ pattern: CHECKSUM_PATTERN, description: "`sha256:<hex>` of the complete base text with LF line endings" }),
    clientId: Type.String({ minLength: 1, maxLength: 64, description: "random pseudonymous client identifier" }),
    seq: int64("running number of this client; makes the call repeatable"),
    displayName: Type.Optional(Type.String({ maxLength: 64, description: "unverified claim" })),
    milestone: Type.Optional(Type.Boolean({ description: "true writes a user-visible state; allows an empty ops list" })),
    ops: Type.Array(LineOperationSchema, { maxItems: 100_000 }),
  },
  { title: "ContentPatchRequest" },
);

export const ContentPatchResult = Type.Object(
  {
    version: int64("new document version", 1),
    opsSinceBase: Type.Array(LineOperationSchema, { description: "empty if the base was current; otherwise the foreign ops the submitted ones were shifted by" }),
    checksum: Type.Optional(
      Type.String({
        pattern: CHECKSUM_PATTERN,
        description:
          "`sha256:<hex>` of the text after the patch, in the request checksum's format: a client rebuilds that text by the rebuild rule (README, \"Writing a client\") and reloads when its checksum differs",
      }),
    ),
  },
  { title: "ContentPatchResult" },
);

export const ContentConflict = Type.Object(
  {
    currentVersion: int64("", 1),
    opsSinceBase: Type.Array(LineOperationSchema, { description: "diff from the submitted base to the current version" }),
  },
  { title: "ContentConflict" },
);
