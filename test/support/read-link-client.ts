import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import { DOCUMENTS, UUID, type ExpectedProblem } from "./http-expect.js";

/** Where every read-only request goes. */
export const READ = "/api/v1/read";

/** The requests of the read-link tests (docs/sharing.md), through `app.inject`. */
export class ReadLinkClient {
  constructor(private readonly app: FastifyInstance) {}

  create(documentId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "POST", url: `${DOCUMENTS}/${documentId}/read-link` });
  }

  link(documentId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "GET", url: `${DOCUMENTS}/${documentId}/read-link` });
  }

  revoke(documentId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${documentId}/read-link` });
  }

  document(readId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "GET", url: `${READ}/${readId}` });
  }

  history(readId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "GET", url: `${READ}/${readId}/history` });
  }

  changes(readId: string, since: number | string, wait?: number, signal?: AbortSignal): Promise<LightMyRequestResponse> {
    const query = wait === undefined ? `since=${since}` : `since=${since}&wait=${wait}`;
    return this.app.inject({ method: "GET", url: `${READ}/${readId}/changes?${query}`, ...(signal ? { signal } : {}) });
  }

  /** Makes a new read link of `documentId` and returns its read id (a fresh random UUID v4). */
  async newReadId(documentId: string): Promise<string> {
    const response = await this.create(documentId);
    expect(response.statusCode, response.body).toBe(201);
    const { readId } = response.json<{ readId: string }>();
    expect(readId).toMatch(UUID);
    return readId;
  }
}

/** The 404 of a read id that names no link (never made, revoked, or replaced). */
export function noReadLink(readId: string, instance: string): ExpectedProblem {
  return { status: 404, code: "not-found", title: "Not found", detail: `no read link ${readId}`, instance };
}

/** The 404 of a read link whose document is deleted. */
export function readLinkOfDeleted(readId: string, instance: string): ExpectedProblem {
  return { status: 404, code: "not-found", title: "Not found", detail: `the document of read link ${readId} is deleted`, instance };
}

/** The 404 of a document without a read link. */
export function noLinkOf(documentId: string, instance: string): ExpectedProblem {
  return { status: 404, code: "not-found", title: "Not found", detail: `document ${documentId} has no read link`, instance };
}

/** Everything an answer shows a client: status, headers and body, as one string (to search it for an id). */
export function visible(response: LightMyRequestResponse): string {
  return `${response.statusCode}\n${JSON.stringify(response.headers)}\n${response.body}`.toLowerCase();
}
