import type { PresenceList, PresenceUpdateRequest } from "./types.js";

/** Where a presence entry is: by the document's id (an editor) or through its read-only link (a viewer). */
export type PresencePlace = { documentId: string } | { readId: string };

/** The typed calls of presence (docs/api.md, "Presence"); `client.presence` of createClient. */
export interface PresenceCalls {
  /** GET …/presence: who is there now, editors and viewers. */
  list(place: PresencePlace, signal?: AbortSignal): Promise<PresenceList>;
  /** PUT …/presence/{clientId}: announces or refreshes the client (a FolioError 429 with `retryAfterSeconds` past the limits). */
  set(place: PresencePlace, clientId: string, body: PresenceUpdateRequest, signal?: AbortSignal): Promise<void>;
  /**
   * DELETE …/presence/{clientId}: the goodbye, idempotent. `keepalive`: the request outlives the page
   * (fetch's keepalive), for a page's `pagehide`; `navigator.sendBeacon` cannot send a DELETE.
   */
  leave(place: PresencePlace, clientId: string, options?: { keepalive?: boolean }): Promise<void>;
}

/** One request as the client's transport (http.ts) sends it: the fields these calls use. */
interface PresenceCall {
  method: "GET" | "PUT" | "DELETE";
  path: string;
  body?: unknown;
  signal?: AbortSignal | undefined;
  keepalive?: boolean;
}

/** The presence calls over the client's transport, which throws a FolioError for every non-2xx answer. */
export function presenceCalls(send: (call: PresenceCall) => Promise<{ status: number; body: unknown }>): PresenceCalls {
  const base = (place: PresencePlace) => ("readId" in place ? `/read/${encodeURIComponent(place.readId)}` : `/documents/${encodeURIComponent(place.documentId)}`) + "/presence";
  return {
    list: async (place, signal) => (await send({ method: "GET", path: base(place), signal })).body as PresenceList,
    set: async (place, clientId, body, signal) => {
      await send({ method: "PUT", path: `${base(place)}/${encodeURIComponent(clientId)}`, body, signal });
    },
    leave: async (place, clientId, options) => {
      await send({ method: "DELETE", path: `${base(place)}/${encodeURIComponent(clientId)}`, ...(options?.keepalive ? { keepalive: true } : {}) });
    },
  };
}
