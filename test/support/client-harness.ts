import { createClient, type FolioClient } from "../../src/client/index.js";
import { buildTestApp, type TestApp, type TestAppOptions } from "./test-app.js";

/** A real service listening on loopback (port 0) and a client for it: what the client suites run against. */
export interface ServedApp {
  t: TestApp;
  baseUrl: string;
  client: FolioClient;
  close(): Promise<void>;
}

export async function serveTestApp(options: TestAppOptions = {}): Promise<ServedApp> {
  const t = await buildTestApp(options);
  const baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  return { t, baseUrl, client: createClient({ baseUrl }), close: () => t.close() };
}
