import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import type * as FolioModule from "../../src/client/index.js";
import type { LiveDocument } from "../../src/client/index.js";
import { serveTestApp, type ServedApp } from "../support/client-harness.js";

// The client in a real browser (Debian's Chromium, driven by playwright-core): the bundle of
// src/client opens a live document on the service over loopback, edits it, follows a remote change
// and converges. The page has no origin of the service's, so the service allows CORS for it.

const CHROMIUM = process.env.FOLIO_CHROMIUM ?? "/usr/bin/chromium";
let served: ServedApp;
let browser: Browser;
let bundle: string;

beforeAll(async () => {
  served = await serveTestApp({ config: (config) => (config.cors.origins = ["*"]) });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const result = await build({ entryPoints: ["src/client/index.ts"], bundle: true, platform: "browser", format: "iife", globalName: "Folio", write: false, logLevel: "silent" });
  bundle = result.outputFiles[0]!.text;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

it("edits a live document from a browser and follows a change made elsewhere", { timeout: 30_000 }, async () => {
  const { id } = await served.client.createDocument({ title: "Browser", content: "one\ntwo" });
  const page = await browser.newPage();
  await page.addScriptTag({ content: bundle });
  await page.evaluate(
    async ({ baseUrl, id }) => {
      const folio = (globalThis as unknown as { Folio: typeof FolioModule }).Folio;
      const doc = await folio.openDocument(folio.createClient({ baseUrl }), id, { waitSeconds: 2 });
      (globalThis as unknown as { doc: typeof doc }).doc = doc;
      doc.setText("one\ntwo\nthree");
      await doc.whenSynced(10_000);
    },
    { baseUrl: served.baseUrl, id },
  );
  expect((await served.client.getDocument(id)).content).toBe("one\ntwo\nthree");

  await served.client.replaceDocument(id, { title: "Browser", content: "zero\none\ntwo\nthree" });
  const seen = await page.evaluate(async () => {
    const doc = (globalThis as unknown as { doc: LiveDocument }).doc;
    for (let i = 0; i < 200 && doc.version < 3; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const result = { text: doc.text, version: doc.version, status: doc.status, clientId: doc.clientId };
    doc.close();
    return result;
  });
  expect(seen.clientId).toMatch(/^[0-9a-f]{32}$/);
  expect({ ...seen, clientId: undefined }).toEqual({ text: "zero\none\ntwo\nthree", version: 3, status: "synced", clientId: undefined });
  await page.close();
});
