import { Type } from "@sinclair/typebox";
import { CHANGE_TYPES } from "../core/change-types.js";
import { EXAMPLE_DOCUMENT_ID } from "./examples.js";
import { problemDetailOn } from "./problem.js";
import { Int64, Uuid } from "./scalars.js";

const int64 = (description: string, minimum = 0) => Int64({ minimum, description });
/** `\S`: at least one character that is not white space (the set String.prototype.trim removes). */
const Title = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: "\\S",
  description: "1 to 255 characters (Unicode code points); not only white space",
  ...problemDetailOn("pattern", "title must not be empty or only white space"),
});
const ChangeTypeSchema = Type.Union(
  CHANGE_TYPES.map((value) => Type.Literal(value)),
  { description: "the kind of change" },
);

export const DocumentIdParams = Type.Object({
  documentId: Uuid({ description: "the document's UUID: its link, and with it the access", examples: [EXAMPLE_DOCUMENT_ID] }),
});

export const DocumentSchema = Type.Object(
  {
    id: Uuid({ description: "read-only" }),
    title: Type.String({ minLength: 1, maxLength: 255 }),
    content: Type.String({ description: "opaque text; at most service.documents.max-content-bytes UTF-8 bytes" }),
    version: int64("incremented on every change", 1),
    createdAt: Type.String({ format: "date-time", description: "read-only" }),
    updatedAt: Type.String({ format: "date-time", description: "read-only" }),
  },
  { title: "Document" },
);

export const DocumentCreateRequest = Type.Object({ title: Title, content: Type.String() }, { title: "DocumentCreateRequest" });

export const DocumentUpdateRequest = Type.Object(
  {
    title: Title,
    content: Type.String(),
    expectedVersion: Type.Optional(int64("when given and not the current version: 409", 0)),
  },
  { title: "DocumentUpdateRequest" },
);

export const TitlePatchRequest = Type.Object(
  { title: Title, expectedVersion: int64("the version the rename is based on", 0) },
  { title: "TitlePatchRequest" },
);

export const RestoreRequest = Type.Union(
  [
    Type.Object(
      { version: Type.Optional(int64("target version; without it the last state before deletion is restored", 1)) },
      { title: "RestoreRequest" },
    ),
    Type.Null(),
  ],
  { description: "the whole body is optional" },
);

export const HistoryEntrySchema = Type.Object(
  {
    documentId: Uuid(),
    version: int64("", 1),
    title: Type.String(),
    content: Type.String({ description: "full text of that state" }),
    changeType: ChangeTypeSchema,
    timestamp: Type.String({ format: "date-time" }),
    clientId: Type.Optional(Type.String({ description: "absent for changes without sender (for example through PUT)" })),
    displayName: Type.Optional(Type.String({ description: "self-chosen, an unverified claim; not proof of authorship" })),
  },
  { title: "DocumentHistoryEntry" },
);

export { ChangeTypeSchema };
