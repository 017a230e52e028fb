import type { ExportFormat } from "../core/outline-formats.js";
import { exportedFile, exportQuery, type ExportedFile, type ExportOptions } from "./export-calls.js";
import type { FeedStream } from "./feed-stream.js";
import type { ChangeFeed, HistoryEntry, ReadLink, ReadOnlyDocument } from "./types.js";

/** The typed calls of read-only links (docs/sharing.md); `client.read` of createClient. */
export interface ReadCalls {
  /** POST …/read-link: a new random link; the document's earlier one stops working. */
  createLink(documentId: string): Promise<ReadLink>;
  /** GET …/read-link: the document's current link; a FolioError 404 when it has none. */
  link(documentId: string): Promise<ReadLink>;
  /** DELETE …/read-link: stops sharing; a FolioError 404 when there is no link. */
  deleteLink(documentId: string): Promise<void>;
  /** GET /read/{readId}: the document, read-only; 404 while it is deleted. */
  document(readId: string, signal?: AbortSignal): Promise<ReadOnlyDocument>;
  /** GET /read/{readId}/history: the document's history, `documentId` being the read id. */
  history(readId: string): Promise<HistoryEntry[]>;
  /** GET /read/{readId}/changes: the document's feed; null on 204. */
  changes(readId: string, query: { since: number; wait?: number }, signal?: AbortSignal): Promise<ChangeFeed | null>;
  /** GET /read/{readId}/events: the document's event stream; `undefined` when the service has none. */
  events(readId: string, since: number, signal: AbortSignal): Promise<FeedStream | undefined>;
  /** GET /read/{readId}/export: the document, or a version, as a file; 404 while it is deleted. */
  export(readId: string, format: ExportFormat, options?: ExportOptions): Promise<ExportedFile>;
}

/** One request as the client's transport (http.ts) sends it: the fields these calls use. */
interface ReadCall {
  method: "GET" | "POST" | "DELETE";
  path: string;
  signal?: AbortSignal | undefined;
  file?: boolean;
}

/** The read-link calls over the client's transport, which throws a FolioError for every non-2xx answer. */
export function readCalls(
  send: (call: ReadCall) => Promise<{ status: number; body: unknown; disposition?: string | null }>,
  stream: (path: string, signal: AbortSignal) => Promise<FeedStream | undefined>,
): ReadCalls {
  const json = async <T>(call: ReadCall): Promise<T> => (await send(call)).body as T;
  const link = (documentId: string) => `/documents/${encodeURIComponent(documentId)}/read-link`;
  const read = (readId: string) => `/read/${encodeURIComponent(readId)}`;
  return {
    createLink: (documentId) => json({ method: "POST", path: link(documentId) }),
    link: (documentId) => json({ method: "GET", path: link(documentId) }),
    deleteLink: async (documentId) => {
      await send({ method: "DELETE", path: link(documentId) });
    },
    document: (readId, signal) => json({ method: "GET", path: read(readId), signal }),
    history: (readId) => json({ method: "GET", path: `${read(readId)}/history` }),
    changes: async (readId, query, signal) => {
      const wait = query.wait !== undefined ? `&wait=${query.wait}` : "";
      const answer = await send({ method: "GET", path: `${read(readId)}/changes?since=${query.since}${wait}`, signal });
      return answer.status === 204 ? null : (answer.body as ChangeFeed);
    },
    events: (readId, since, signal) => stream(`${read(readId)}/events?since=${since}`, signal),
    export: async (readId, format, options) => exportedFile(format, await send({ method: "GET", path: `${read(readId)}/export${exportQuery(format, options)}`, signal: options?.signal, file: true })),
  };
}
