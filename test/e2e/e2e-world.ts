/**
 * What every editor E2E file sets up the same way: the page built once, the real service on
 * 127.0.0.1 (with the fake Taiga when asked), one Chromium, a browser context per author, and the
 * rule that an uncaught page error fails the test. Screenshots go to docs/screenshots with
 * UPDATE_SCREENSHOTS=1 (to commit them), else into the temporary build folder, so that a test run
 * leaves the working tree as it was.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { seedWorld, type TrackerWorld } from "../support/tracker-harness.js";
import { CHROMIUM, CHROMIUM_ARGS, browserFound, buildPage, eventually, startService } from "./e2e-support.js";

export const TRACKER_WEB = "https://tracker.example.test";
const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === "1";

export interface Author {
  tab: Page;
  context: BrowserContext;
  openedInMs: number;
}

export interface EditorWorld {
  browser: Browser;
  service: { app: FastifyInstance; url: string };
  page: Awaited<ReturnType<typeof buildPage>>;
  /** The folder screenshots go to. */
  shots: string;
  /** The fake Taiga and its seeded world, when the world was made with a tracker. */
  fake?: FakeTaiga;
  tracker?: TrackerWorld;
  pageErrors: string[];
  /** A browser context of its own (closed after the test), whose pages' errors fail the test. */
  context(options?: Parameters<Browser["newContext"]>[0]): Promise<BrowserContext>;
  /** A page of its own browser context (its own localStorage), opened on the document, with a display name, saved. */
  author(id: string, name: string, viewport?: { width: number; height: number }): Promise<Author>;
  /** Opens the document in `tab` and waits until the editor is editable. */
  open(tab: Page, id: string): Promise<void>;
}

/** Fails the file in CI without a browser; elsewhere the caller's describe.skipIf(!browserFound) skips it. */
export function requireBrowser(file: string): void {
  if (browserFound) return;
  if (process.env.CI) {
    it("finds chromium (CI installs it)", () => {
      throw new Error(`no browser at ${CHROMIUM}: the editor's end-to-end tests must run in CI`);
    });
  } else {
    console.warn(`${file}: skipped, no browser at ${CHROMIUM}`);
  }
}

/** Registers the hooks of one describe block and returns the world they set up (filled in by beforeAll). */
export function useEditorWorld(options: { tracker?: boolean } = {}): EditorWorld {
  const contexts: BrowserContext[] = [];
  const world = { pageErrors: [] as string[] } as unknown as EditorWorld;

  world.context = async (contextOptions) => {
    const context = await world.browser.newContext(contextOptions);
    contexts.push(context);
    context.on("page", (tab) => {
      tab.on("pageerror", (error) => world.pageErrors.push(`${tab.url()}: ${error.message}`));
      tab.on("console", (message) => {
        if (message.text().includes("Content Security Policy")) world.pageErrors.push(`${tab.url()}: ${message.text()}`);
      });
    });
    return context;
  };
  world.open = async (tab, id) => {
    await tab.goto(`${world.service.url}/d/${id}`);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor({ timeout: 10_000 });
  };
  world.author = async (id, name, viewport = { width: 1100, height: 720 }) => {
    const context = await world.context({ viewport });
    await context.addInitScript(`if (location.protocol === "http:") localStorage.setItem("folio.displayName", ${JSON.stringify(name)})`);
    const tab = await context.newPage();
    const started = Date.now();
    await world.open(tab, id);
    const openedInMs = Date.now() - started;
    await eventually(() => tab.locator(".sync").getAttribute("data-status"), (status) => status === "synced");
    return { tab, context, openedInMs };
  };

  beforeAll(async () => {
    if (options.tracker) {
      world.fake = await FakeTaiga.start();
      world.tracker = seedWorld(world.fake);
    }
    world.page = await buildPage();
    world.shots = UPDATE_SCREENSHOTS ? join(import.meta.dirname, "..", "..", "docs", "screenshots") : join(world.page.root, "screenshots");
    mkdirSync(world.shots, { recursive: true });
    world.service = await startService(world.page.root, world.fake ? { apiUrl: world.fake.apiUrl, webUrl: TRACKER_WEB } : undefined);
    world.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 90_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    expect(world.pageErrors.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await world.browser?.close();
    await world.service?.app.close();
    await world.fake?.close();
    world.page?.dispose();
  });
  return world;
}

/** Puts the cursor at the end (or start) of line `index` (0-based). */
export async function cursorAt(tab: Page, index: number, where: "End" | "Home"): Promise<void> {
  await tab.locator(".cm-line").nth(index).click();
  await tab.keyboard.press(where);
}

/** The service's text and the versions of its history. */
export async function served(url: string, id: string): Promise<{ content: string; history: Array<{ version: number; changeType: string; content: string }> }> {
  const document = (await (await fetch(`${url}/api/v1/documents/${id}`)).json()) as { content: string };
  const history = (await (await fetch(`${url}/api/v1/documents/${id}/history`)).json()) as Array<{ version: number; changeType: string; content: string }>;
  return { content: document.content, history };
}
