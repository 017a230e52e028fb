import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { compose } from "../../src/composition.js";
import { buildApp } from "../../src/http/app.js";
import { systemClock } from "../../src/service/clock.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { testConfig } from "../support/test-app.js";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
export const browserFound = existsSync(CHROMIUM);

/** Builds the page into a temporary folder with the project's own build script (bounded to 60 s). */
export async function buildPage(): Promise<{ root: string; bundle: { js: number; jsGzip: number; css: number }; dispose: () => void }> {
  const root = mkdtempSync(join(tmpdir(), "folio-e2e-web-"));
  await promisify(execFile)(process.execPath, ["scripts/build-web.mjs", "--outdir", root], { timeout: 60_000 });
  const assets = join(root, "assets");
  const files = readdirSync(assets);
  const js = files.find((name) => name.endsWith(".js"))!;
  const css = files.find((name) => name.endsWith(".css"))!;
  return {
    root,
    bundle: { js: statSync(join(assets, js)).size, jsGzip: gzipSync(readFileSync(join(assets, js))).length, css: statSync(join(assets, css)).size },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The real service (in-memory SQLite, the system clock) listening on 127.0.0.1 on a free port. */
export async function startService(webRoot: string, tracker?: { apiUrl: string; webUrl: string }): Promise<{ app: FastifyInstance; url: string }> {
  const config = testConfig((c) => {
    if (tracker) {
      c.tracker.apiUrl = tracker.apiUrl;
      c.tracker.webUrl = tracker.webUrl;
      c.tracker.loginType = "normal";
    }
  });
  const store = SqliteStore.open(":memory:");
  const app = await buildApp({ composition: compose({ config, store, clock: systemClock }), identity: { name: "folio", version: "0.1.0" }, logger: false, webRoot });
  app.addHook("onClose", async () => store.close());
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { app, url: `http://127.0.0.1:${address.port}` };
}

/** Creates a document through the API (the test's own setup, not the page's). */
export async function createDocument(url: string, title: string, content: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title, content }) });
  expect(response.status).toEqual(201);
  return ((await response.json()) as { id: string }).id;
}

/** The editor's text as the page shows it: one `.cm-line` per line, without the ticket badges (widgets, not text). */
export async function editorText(page: Page): Promise<string> {
  // A string, evaluated in the page: the test code is type-checked without the DOM library.
  const lines = await page.evaluate<string[]>(
    `Array.from(document.querySelectorAll(".cm-content > .cm-line"), (line) => {
      const copy = line.cloneNode(true);
      copy.querySelectorAll(".cm-ticket-badge").forEach((badge) => badge.remove());
      return copy.textContent ?? "";
    })`,
  );
  return lines.join("\n");
}

/** Polls (every 50 ms, at most `ms`) until `read` gives a value `done` accepts; returns the last value. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/**
 * Waits until every page shows the same text, the service holds it too, and every page says "Saved".
 * After an action that reaches the document asynchronously (an import, a rollback), pass the `expected`
 * text: the pages stand converged on the old text until the action lands.
 */
export async function expectConverged(url: string, id: string, pages: Page[], expected?: string): Promise<string> {
  const read = async () => {
    const texts = await Promise.all(pages.map(editorText));
    const response = await fetch(`${url}/api/v1/documents/${id}`);
    const served = ((await response.json()) as { content: string }).content;
    const saved = await Promise.all(pages.map((page) => page.locator(".sync").getAttribute("data-status")));
    return { texts, served, saved };
  };
  const state = await eventually(read, (s) => (expected === undefined || s.served === expected) && s.texts.every((text) => text === s.served) && s.saved.every((status) => status === "synced"), 15_000);
  expect(state.texts).toEqual(pages.map(() => state.served));
  expect(state.saved).toEqual(pages.map(() => "synced"));
  return state.served;
}

/** One picture of several pages side by side, each with a caption (composed in the browser itself). */
export async function sideBySide(browser: Browser, shots: { caption: string; png: Buffer }[], path: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 800, height: 400 } });
  try {
    const tab = await context.newPage();
    const figures = shots
      .map(({ caption, png }) => `<figure><figcaption>${caption}</figcaption><img src="data:image/png;base64,${png.toString("base64")}"></figure>`)
      .join("");
    await tab.setContent(
      `<style>body{margin:0;padding:16px;display:flex;gap:16px;align-items:flex-start;background:#c9d0da;font:600 14px system-ui,sans-serif;width:max-content}` +
        `figure{margin:0}figcaption{margin:0 0 6px}img{display:block;border:1px solid #8a94a3;border-radius:6px}</style>${figures}`,
    );
    await tab.screenshot({ path, fullPage: true });
  } finally {
    await context.close();
  }
}
