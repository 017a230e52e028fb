import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { LineOperation } from "../../src/core/line-operation.js";
import type { ChangeHub } from "../../src/service/change-hub.js";
import { DOCUMENTS, checksum } from "./http-expect.js";
import { waitUntil, type WaitBounds } from "./wait-until.js";

export { DOCUMENTS };

/** A content patch, with the base text instead of its checksum (the checksum is computed from it). */
export interface PatchInput {
  baseVersion: number;
  base: string;
  seq: number;
  ops: LineOperation[];
  clientId?: string;
  displayName?: string;
  milestone?: boolean;
}

/** The document requests the change-feed tests make, through `app.inject`. */
export class FeedClient {
  constructor(private readonly app: FastifyInstance) {}

  /** GET …/changes with `since` and, when given, `wait` (seconds). */
  changes(id: string, since: number | string, wait?: number | string, signal?: AbortSignal): Promise<LightMyRequestResponse> {
    const query = wait === undefined ? `since=${since}` : `since=${since}&wait=${wait}`;
    return this.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/changes?${query}`, ...(signal ? { signal } : {}) });
  }

  /** PATCH …/content; the checksum is the one of `base`. */
  patch(id: string, input: PatchInput): Promise<LightMyRequestResponse> {
    const { base, clientId = "client-1", ...rest } = input;
    return this.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/content`, payload: { ...rest, clientId, checksum: checksum(base) } });
  }

  put(id: string, title: string, content: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title, content } });
  }

  rename(id: string, title: string, expectedVersion: number): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title, expectedVersion } });
  }

  remove(id: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${id}` });
  }

  restore(id: string, version?: number): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "POST", url: `${DOCUMENTS}/${id}/restore`, ...(version === undefined ? {} : { payload: { version } }) });
  }

  get(id: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}` });
  }

  history(id: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/history` });
  }
}

/** Asserts a 204 answer: no content type and an empty body. */
export function expectNoContent(response: LightMyRequestResponse): void {
  expect({ status: response.statusCode, contentType: response.headers["content-type"], body: response.body }).toEqual({
    status: 204,
    contentType: undefined,
    body: "",
  });
}

/** Asserts that a write answered with `status` (a precondition of a feed test, not its subject). */
export function expectStatus(response: LightMyRequestResponse, status: number): void {
  expect(response.statusCode, response.body).toBe(status);
}

/** Waits (bounded) until the hub holds exactly `count` waiters, and fails the test when it never does. */
export async function untilWaiting(hub: ChangeHub, count: number, bounds?: WaitBounds): Promise<void> {
  const reached = await waitUntil(() => hub.stats().waiters === count, bounds);
  expect(reached ? count : hub.stats().waiters, "waiters registered with the hub").toBe(count);
}

/** The hub's bookkeeping when nobody waits: no document entry, no waiter, no timer. */
export const IDLE_HUB = { documents: 0, waiters: 0, timers: 0 };

/**
 * Starts `count` polls with `poll`, aborts every one once all of them wait, and asserts that each
 * ended in an AbortError (none was answered) and that the hub is idle again.
 */
export async function expectAbortedPollsLeaveHubIdle(hub: ChangeHub, count: number, poll: (signal: AbortSignal) => Promise<LightMyRequestResponse>): Promise<void> {
  const controllers = Array.from({ length: count }, () => new AbortController());
  const requests = controllers.map((controller) =>
    poll(controller.signal).then(
      (response) => `answered ${response.statusCode}`,
      (error: Error) => error.name,
    ),
  );
  await untilWaiting(hub, count);

  for (const controller of controllers) controller.abort();

  expect(await Promise.all(requests)).toEqual(Array.from({ length: count }, () => "AbortError"));
  expect(await waitUntil(() => hub.stats().waiters === 0)).toBe(true);
  expect(hub.stats()).toEqual(IDLE_HUB);
}
