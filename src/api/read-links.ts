import { Type } from "@sinclair/typebox";
import { DocumentSchema } from "./documents.js";
import { Uuid } from "./scalars.js";

// Read-only links (docs/sharing.md): a second, separate UUID per document that reads but never
// writes. Nothing answered under /read/ carries the document's own id.

/** An example read id, for the OpenAPI document. */
export const EXAMPLE_READ_ID = "0d3c6f1e-58a2-4b7d-9e41-7a2f5c8b6d90";

const ReadId = (description: string) => Uuid({ description });

export const ReadIdParams = Type.Object({
  readId: Uuid({ description: "the read-only link's id (never the document's own id)", examples: [EXAMPLE_READ_ID] }),
});

export const ReadLinkSchema = Type.Object(
  { readId: ReadId("the document's current read-only link: /api/v1/read/{readId} reads it; a new one replaces it") },
  { title: "ReadLink" },
);

// The document's own fields but its id, in the order of the Document schema, behind the read id.
const { id: _documentId, ...documentFields } = DocumentSchema.properties;

export const ReadOnlyDocumentSchema = Type.Object(
  { readId: ReadId("the read id the document was read by"), ...documentFields },
  { title: "ReadOnlyDocument" },
);
