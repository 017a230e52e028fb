import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { DocumentIdParams } from "../../api/documents.js";
import { EXAMPLE_DOCUMENT_ID, examples } from "../../api/examples.js";
import { ExportQuery } from "../../api/export.js";
import { EXAMPLE_READ_ID, ReadIdParams } from "../../api/read-links.js";
import { EXPORT_FORMATS, exportFileName, exportOutline, FORMATS, type ExportFormat } from "../../core/outline-formats.js";
import type { DocumentService } from "../../service/documents.js";
import type { ReadLinks } from "../../service/read-links.js";
import { problem } from "../openapi-answers.js";
import { contentDisposition } from "./content-disposition.js";

// Export (docs/notation.md#export-and-import): the text of a document, or of a version, as a file.
// The conversion is src/core's, the same the client library and the page use.

const tags = ["documents"];
const exampleDocument = { title: examples.document.title, content: examples.document.content };

/** The 200 of an export: one media type per format, each with the example document converted, and the file name. */
const exported = {
  description: "the document as a file of the format asked for (UTF-8), to save under the name `Content-Disposition` gives",
  content: Object.fromEntries(
    EXPORT_FORMATS.map((format) => [FORMATS[format].mediaType.split(";")[0]!, { schema: Type.String({ description: `the ${format} file` }), example: exportOutline(format, exampleDocument) }]),
  ),
  headers: {
    "Content-Disposition": Type.String({
      description: "`attachment` with the file name made from the title (RFC 6266): an ASCII `filename` and, for any other title, `filename*` in UTF-8 (RFC 8187)",
      example: contentDisposition(exportFileName(examples.document.title, "markdown")),
    }),
  },
};

const description = (where: string) =>
  `The ${where} as Markdown (a nested list, boxes as GFM task items), OPML 2.0 (Workflowy's and Dynalist's attributes) or plain text, ` +
  "with `version` one of its versions; docs/notation.md says how the outline maps. A read: no version is written. " +
  "An encrypted document exports its ciphertext: the page converts those in the browser.";

function send(reply: FastifyReply, format: ExportFormat, document: { title: string; content: string }) {
  return reply
    .type(FORMATS[format].mediaType)
    .header("content-disposition", contentDisposition(exportFileName(document.title, format)))
    .header("cache-control", "no-store")
    .send(exportOutline(format, document));
}

export const exportRoutes: FastifyPluginAsyncTypebox<{ documents: DocumentService; readLinks: ReadLinks }> = async (app, { documents, readLinks }) => {
  app.get(
    "/documents/:documentId/export",
    {
      schema: {
        tags,
        operationId: "exportDocument",
        summary: "Download a document as Markdown, OPML or text",
        description: description("document's text, or a version's,"),
        params: DocumentIdParams,
        querystring: ExportQuery,
        response: {
          200: exported,
          404: problem(
            "no document has this id (a deleted document counts as none), or it has no such version (never had it, or it was compacted)",
            { code: "not-found", detail: `no document ${EXAMPLE_DOCUMENT_ID}`, key: "document" },
            { code: "not-found", detail: `document ${EXAMPLE_DOCUMENT_ID} has no version 9`, key: "version" },
          ),
        },
      },
    },
    async (request, reply) => send(reply, request.query.format, await documents.snapshot(request.params.documentId, request.query.version)),
  );

  app.get(
    "/read/:readId/export",
    {
      schema: {
        tags,
        operationId: "readExport",
        summary: "Download a document through its read-only link",
        description: description("document behind a read-only link"),
        params: ReadIdParams,
        querystring: ExportQuery,
        response: {
          200: exported,
          404: problem(
            "unknown or revoked read id, the document is deleted, or it has no such version",
            { code: "not-found", detail: `no read link ${EXAMPLE_READ_ID}`, instance: `/api/v1/read/${EXAMPLE_READ_ID}/export`, key: "link" },
            { code: "not-found", detail: `the document of read link ${EXAMPLE_READ_ID} is deleted`, instance: `/api/v1/read/${EXAMPLE_READ_ID}/export`, key: "deleted" },
          ),
        },
      },
    },
    async (request, reply) => send(reply, request.query.format, await readLinks.snapshot(request.params.readId, request.query.version)),
  );
};
