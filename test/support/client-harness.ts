import { FolioError, createClient, openDocument, type FolioClient, type LiveDocument, type OpenOptions } from "../../src/client/index.js";
import { recordingFetch, type RecordingFetch } from "./client-fetch.js";
import { ManualClock } from "./manual-clock.js";
import { buildTestApp, type TestApp, type TestAppOptions } from "./test-app.js";

/** A real service listening on loopback (port 0) and a client for it: what the client suites run against. */
export interface ServedApp {
  t: TestApp;
  baseUrl: string;
  client: FolioClient;
  close(): Promise<void>;
}

export async function serveTestApp(options: TestAppOptions = {}): Promise<ServedApp> {
  // The clients poll, retry and time out on real time: the service's timers must too.
  const t = await buildTestApp({ clock: new ManualClock(undefined, { realTimers: true }), ...options });
  const baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  return { t, baseUrl, client: createClient({ baseUrl }), close: () => t.close() };
}

/** Quick retries and short polls, so that a test's faults cost milliseconds. */
export const FAST: OpenOptions = { waitSeconds: 2, retry: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5_000 };

/** A replace of the one line at `index` by `lines`, as a patch's ops carry it. */
export const replaceLine = (index: number, ...lines: string[]) => ({ op: "replace", index, count: 1, lines });

/** A live document opened through its own recording fetch. */
export async function openLive(baseUrl: string, id: string, options: OpenOptions = {}): Promise<{ doc: LiveDocument; net: RecordingFetch }> {
  const net = recordingFetch();
  const doc = await openDocument(createClient({ baseUrl, fetch: net.fetch }), id, { ...FAST, ...options });
  return { doc, net };
}

/**
 * Waits until every live document is synced on the service's head (same version and text as GET
 * returns), at most `maxMs`; throws with the state of each when it does not happen.
 */
export async function converged(client: FolioClient, id: string, docs: readonly LiveDocument[], maxMs = 5_000): Promise<string> {
  const deadline = performance.now() + maxMs;
  let head = await client.getDocument(id);
  for (let round = 0; round < 1_000; round++) {
    const remaining = deadline - performance.now();
    if (remaining <= 0) break;
    await Promise.all(docs.map((doc) => doc.whenSynced(remaining).catch(() => undefined)));
    head = await client.getDocument(id);
    if (docs.every((doc) => doc.version === head.version && doc.text === head.content && doc.status === "synced")) return head.content;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const states = docs.map((doc) => ({ version: doc.version, status: doc.status, text: doc.text }));
  throw new Error(`not converged within ${maxMs} ms on version ${head.version} ${JSON.stringify(head.content)}: ${JSON.stringify(states)}`);
}

/** The FolioError a call fails with; throws when it succeeds or fails otherwise. */
export async function caught(promise: Promise<unknown>): Promise<FolioError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FolioError) return error;
    throw error;
  }
  throw new Error("the call did not fail");
}
