import { FolioError } from "./errors.js";
import type { FolioClient } from "./http.js";
import { untilAnswered, type RetryContext } from "./retrying.js";
import type { Document } from "./types.js";

/**
 * The title patch of a live document with the version it holds, retried once with the current
 * version on a 409 (the version moved on, maybe by the document's own patch).
 */
export async function renameWithRetry(client: FolioClient, id: string, retrying: RetryContext, title: string, version: number): Promise<Document> {
  const context = { ...retrying, failing: () => undefined };
  const attempt = (expectedVersion: number) => untilAnswered(context, (signal) => client.renameDocument(id, { title, expectedVersion }, signal));
  try {
    return await attempt(version);
  } catch (error) {
    if (!(error instanceof FolioError) || error.status !== 409) throw error;
    const current = await untilAnswered(context, (signal) => client.getDocument(id, signal));
    return attempt(current.version);
  }
}
