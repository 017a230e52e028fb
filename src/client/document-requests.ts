import { FolioError } from "./errors.js";
import type { FolioClient } from "./http.js";
import { KeyLostError, keyStillOpens } from "./key-check.js";
import type { LineCodec } from "./line-codec.js";
import type { PatchSettlement } from "./live-state.js";
import { renameWithRetry } from "./rename.js";
import { untilAnswered, type RetryContext } from "./retrying.js";
import type { ContentPatchRequest, Document } from "./types.js";

/**
 * The requests of a live document besides its feed, each sent until it is answered (retrying.ts)
 * and bound to the document's signal. They hold nothing of the document's texts or versions.
 */
export class DocumentRequests {
  constructor(
    private readonly client: FolioClient,
    private readonly id: string,
    private readonly codec: LineCodec,
    private readonly retrying: RetryContext,
  ) {}

  /**
   * The patch, the same body (same seq) on every attempt, until it has an answer; or the error that
   * ended it (a 4xx, a KeyLostError, the close). Each attempt of an encrypted document's patch first
   * makes sure its key still opens the document (key-check.ts): a stale key never writes.
   */
  patch(request: ContentPatchRequest): Promise<PatchSettlement> {
    const attempt = async (signal: AbortSignal) => {
      if (!(await keyStillOpens(this.client, this.id, this.codec, request.baseVersion, signal))) throw new KeyLostError();
      return this.client.patchContent(this.id, request, signal);
    };
    return untilAnswered(this.retrying, attempt).then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    );
  }

  /** The document as the service has it now; undefined on a 404 (deleted, or never there). */
  async read(): Promise<Document | undefined> {
    try {
      return await untilAnswered(this.retrying, (signal) => this.client.getDocument(this.id, signal));
    } catch (error) {
      if (!(error instanceof FolioError) || error.status !== 404) throw error;
      return undefined;
    }
  }

  /** The title patch (sealed for an encrypted document), with the version held, retried once on a 409. */
  rename(title: string, version: number): Promise<Document> {
    return renameWithRetry(this.client, this.id, this.retrying, this.codec.encodeTitle(title), version);
  }
}
