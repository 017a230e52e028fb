/**
 * The outliner's tools in Chromium against the real service (docs/editor.md): find and replace in a
 * 5,000-line document, Tab / Shift+Tab and Escape-then-Tab, check boxes by click and by key with the
 * count, Enter continuing a checklist, folding (kept over a reload) and moving a node with its
 * children, Ctrl+click links, the touch buttons at 360 px, dark mode, and axe-core on every page
 * and panel in both color schemes. Every edit must reach the service as typed text does.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { createClient, createEncryptedDocument, generateDocumentKey } from "../../src/client/index.js";
import { axeViolations } from "./axe-check.js";
import { browserFound, createDocument, editorText, eventually, expectConverged } from "./e2e-support.js";
import { cursorAt, requireBrowser, served, TRACKER_WEB, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-outliner.test.ts");

const focused = (tab: Page) => tab.evaluate<string>(`(() => { const e = document.activeElement; return e ? e.tagName.toLowerCase() + "." + e.className : "none"; })()`);
const count = (tab: Page) => tab.locator(".box-count").textContent();

describe.skipIf(!browserFound)("the outliner's tools", { timeout: 90_000 }, () => {
  const w = useEditorWorld({ tracker: true });

  it("finds and replaces over a whole 5,000-line document by keyboard, lines off screen included", async () => {
    const lines = Array.from({ length: 5000 }, (_, k) => `node ${k + 1}`);
    lines[4320] = "  needle in node 4321";
    const id = await createDocument(w.service.url, "Long", lines.join("\n"));
    const { tab } = await w.author(id, "Ada");

    await tab.keyboard.press("Control+f");
    expect(await focused(tab)).toMatch(/^input\.cm-textfield/);
    await tab.keyboard.type("needle");
    await tab.keyboard.press("Enter");
    const match = tab.locator(".cm-searchMatch-selected");
    await match.waitFor();
    expect([await match.textContent(), await match.isVisible()]).toEqual(["needle", true]);
    await tab.screenshot({ path: join(w.shots, "find-replace.png") });

    await tab.locator('.cm-search input[name="replace"]').fill("pin");
    await tab.locator('.cm-search button[name="replaceAll"]').click();
    await tab.keyboard.press("Escape");
    expect(await tab.locator(".cm-search").count()).toEqual(0);
    expect(await focused(tab)).toMatch(/^div\.cm-content/);
    const expected = lines.map((line) => line.replace("needle", "pin")).join("\n");
    expect(await eventually(async () => (await served(w.service.url, id)).content, (text) => text === expected)).toEqual(expected);
  });

  it("indents with Tab and outdents with Shift+Tab, and leaves the editor with Escape then Tab", async () => {
    const id = await createDocument(w.service.url, "Tabs", "Launch\nWrite notes\nTest upgrade\nAnnounce");
    const { tab } = await w.author(id, "Ada");

    await cursorAt(tab, 1, "End");
    await tab.keyboard.press("Tab");
    await tab.keyboard.press("ArrowDown");
    await tab.keyboard.press("Shift+ArrowDown");
    await tab.keyboard.press("Tab");
    await tab.keyboard.press("Tab");
    await tab.keyboard.press("Shift+Tab");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  Write notes\n  Test upgrade\n  Announce");
    await tab.keyboard.press("Alt+ArrowRight");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  Write notes\n    Test upgrade\n    Announce");

    // A selection first collapses on Escape (CodeMirror's own binding); with a cursor, Escape arms Tab to leave.
    await tab.keyboard.press("End");
    await tab.keyboard.press("Escape");
    await tab.keyboard.press("Tab");
    expect(await focused(tab)).not.toMatch(/cm-content/);
    expect(await editorText(tab)).toEqual("Launch\n  Write notes\n    Test upgrade\n    Announce");
    expect(await tab.locator(".hint").textContent()).toContain("Escape then Tab leaves the editor");
  });

  it("toggles a box by a click and by Ctrl+Enter as undoable edits, continues a checklist with Enter, and counts the boxes", async () => {
    const id = await createDocument(w.service.url, "Boxes", "Launch\n  [ ] Write notes\n  [ ] Test upgrade");
    const { tab } = await w.author(id, "Ada");
    expect(await count(tab)).toEqual("Check boxes: 0 of 2 done");

    await tab.locator(".cm-line").nth(1).locator(".cm-box").click();
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  [x] Write notes\n  [ ] Test upgrade");
    await cursorAt(tab, 2, "End");
    await tab.keyboard.press("Control+Enter");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  [x] Write notes\n  [x] Test upgrade");
    await tab.keyboard.press("Control+z");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  [x] Write notes\n  [ ] Test upgrade");

    await tab.keyboard.press("End");
    await tab.keyboard.press("Enter");
    await tab.keyboard.type("Announce");
    await tab.keyboard.press("Enter");
    await tab.keyboard.press("Enter");
    await tab.keyboard.type("Retro");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  [x] Write notes\n  [ ] Test upgrade\n  [ ] Announce\n  Retro");
    expect(await eventually(() => count(tab), (text) => text === "Check boxes: 1 of 3 done")).toEqual("Check boxes: 1 of 3 done");
  });

  it("folds a node with its children (its boxes counted), keeps the fold over a reload, and moves a node with its children", async () => {
    const text = "Launch\n  [x] Write notes\n  [ ] Test upgrade\n    on staging\nRetro\n  Book room";
    const id = await createDocument(w.service.url, "Fold", text);
    const { tab } = await w.author(id, "Ada");

    await tab.locator('.cm-foldGutter [title="Fold line"]').first().click();
    const placeholder = tab.locator(".cm-foldPlaceholder");
    expect(await placeholder.textContent()).toEqual("… 3 lines, 1 of 2 done");
    expect(await editorText(tab)).toEqual("Launch… 3 lines, 1 of 2 done\nRetro\n  Book room");
    await tab.screenshot({ path: join(w.shots, "fold-and-boxes.png"), clip: { x: 0, y: 0, width: 1100, height: 420 } });

    await tab.reload();
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    expect(await eventually(() => placeholder.count(), (found) => found === 1)).toEqual(1);
    await tab.getByRole("button", { name: "Unfold all" }).click();
    expect(await placeholder.count()).toEqual(0);

    await cursorAt(tab, 0, "End");
    await tab.keyboard.press("Alt+Shift+ArrowDown");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Retro\n  Book room\nLaunch\n  [x] Write notes\n  [ ] Test upgrade\n    on staging");
    await tab.keyboard.type("!");
    await tab.keyboard.press("Alt+Shift+ArrowUp");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch!\n  [x] Write notes\n  [ ] Test upgrade\n    on staging\nRetro\n  Book room");
  });

  it("opens a link on Ctrl+click only; a plain click places the cursor", async () => {
    const target = `${w.service.url}/api/v1/info`;
    const id = await createDocument(w.service.url, "Links", `See ${target} for the version\nSprint &tracker.alice-folio\n  Sign-up form #US-3`);
    const { tab, context } = await w.author(id, "Ada");
    const link = tab.locator(".cm-url").first();
    expect(await link.textContent()).toEqual(target);
    // A ticket reference links the tracker's page of the ticket (not opened here: it is not on loopback).
    expect(await tab.locator(".cm-url").nth(1).getAttribute("data-href")).toEqual(`${TRACKER_WEB}/project/alice-folio/us/3`);

    await link.click();
    expect(context.pages().length).toEqual(1);
    const [opened] = await Promise.all([context.waitForEvent("page"), link.click({ modifiers: ["Control"] })]);
    await opened.waitForLoadState();
    expect(opened.url()).toEqual(target);
  });

  it("gives a narrow touch screen buttons to indent, outdent and move a node", async () => {
    const id = await createDocument(w.service.url, "Phone", "Launch\nWrite notes\nAnnounce");
    const context = await w.context({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
    const tab = await context.newPage();
    await w.open(tab, id);
    await cursorAt(tab, 1, "End");
    await tab.getByRole("button", { name: "Move down", exact: true }).tap();
    await tab.getByRole("button", { name: "Indent", exact: true }).tap();
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\nAnnounce\n  Write notes");
    await tab.getByRole("button", { name: "Outdent", exact: true }).tap();
    await tab.getByRole("button", { name: "Move up", exact: true }).tap();
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\nWrite notes\nAnnounce");
    expect(await tab.evaluate<boolean>("document.documentElement.scrollWidth <= 360")).toEqual(true);
    await tab.screenshot({ path: join(w.shots, "outline-touch-360.png") });
  });

  for (const colorScheme of ["light", "dark"] as const) {
    it(`has no axe violation on any page or panel, in ${colorScheme} mode`, async () => {
      const id = await createDocument(w.service.url, "Checked", "Launch https://example.test/plan\n  [ ] Write notes\n  [x] Test upgrade\n    on staging");
      const readId = ((await (await fetch(`${w.service.url}/api/v1/documents/${id}/read-link`, { method: "POST" })).json()) as { readId: string }).readId;
      const context = await w.context({ viewport: { width: 1100, height: 760 }, colorScheme });
      const tab = await context.newPage();
      const found: Record<string, string[]> = {};

      await tab.goto(`${w.service.url}/`);
      await tab.locator("h1").waitFor();
      found.home = await axeViolations(tab);
      await w.open(tab, id);
      await eventually(() => tab.locator(".sync").getAttribute("data-status"), (status) => status === "synced");
      found.document = await axeViolations(tab);
      for (const panel of ["History", "Share", "Export and import"]) {
        await tab.getByRole("button", { name: panel, exact: true }).click();
        await tab.locator(".panel:not([hidden]) h2").first().waitFor();
      }
      await tab.locator(".history-entry").first().waitFor();
      found.panels = await axeViolations(tab);
      await cursorAt(tab, 0, "End");
      await tab.keyboard.press("Control+f");
      await tab.keyboard.type("notes");
      await tab.locator('.cm-foldGutter [title="Fold line"]').nth(1).click();
      found["find and fold"] = await axeViolations(tab);
      if (colorScheme === "dark") await tab.screenshot({ path: join(w.shots, "dark-mode.png") });
      await tab.goto(`${w.service.url}/r/${readId}`);
      await tab.locator(".read-title").waitFor();
      await tab.getByRole("button", { name: "Export", exact: true }).click();
      found["read-only"] = await axeViolations(tab);
      await tab.goto(`${w.service.url}/d/00000000-0000-4000-8000-000000000000`);
      await tab.locator("h1").waitFor();
      found["not found"] = await axeViolations(tab);
      const sealed = await createEncryptedDocument(createClient({ baseUrl: w.service.url }), { title: "Sealed", content: "a" }, generateDocumentKey());
      await tab.goto(`${w.service.url}/d/${sealed.id}`);
      await tab.locator("h1").waitFor();
      found["key needed"] = await axeViolations(tab);

      expect(found).toEqual({ home: [], document: [], panels: [], "find and fold": [], "read-only": [], "not found": [], "key needed": [] });
    });
  }
});
