import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { DOCUMENTS } from "./http-expect.js";
import { READ } from "./read-link-client.js";

/** A presence update's body (docs/api.md, "Presence"). */
export interface PresenceBody {
  displayName?: string;
  state: unknown;
}

/** The requests of the presence suites, through `app.inject`: by the document's id, or (`read`) through a read id. */
export class PresenceClient {
  constructor(private readonly app: FastifyInstance) {}

  list(documentId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "GET", url: `${DOCUMENTS}/${documentId}/presence` });
  }

  set(documentId: string, clientId: string, body: PresenceBody | string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "PUT", url: `${DOCUMENTS}/${documentId}/presence/${clientId}`, headers: { "content-type": "application/json" }, payload: asPayload(body) });
  }

  remove(documentId: string, clientId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${documentId}/presence/${clientId}` });
  }

  readList(readId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "GET", url: `${READ}/${readId}/presence` });
  }

  readSet(readId: string, clientId: string, body: PresenceBody | string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "PUT", url: `${READ}/${readId}/presence/${clientId}`, headers: { "content-type": "application/json" }, payload: asPayload(body) });
  }

  readRemove(readId: string, clientId: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "DELETE", url: `${READ}/${readId}/presence/${clientId}` });
  }
}

const asPayload = (body: PresenceBody | string) => (typeof body === "string" ? body : JSON.stringify(body));

/** One entry of a presence list as the service answers it. */
export function present(clientId: string, role: "editor" | "viewer", state: object, updatedAt: string, displayName?: string) {
  return { clientId, ...(displayName !== undefined ? { displayName } : {}), role, state, updatedAt };
}
