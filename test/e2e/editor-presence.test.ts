/**
 * Who is here, in Chromium against the real service (docs/editor.md, "Who is here"; issue 36): two
 * pages see each other's name and cursor within a second; a cursor stays on its word while the other
 * person types before it; a closed page leaves the other's list within two seconds; a reader through
 * the read-only link is listed as viewing; on an encrypted document the service's presence list holds
 * no name and no position in plain. Screenshots (light and dark) go where e2e-world.ts puts them.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createClient, createEncryptedDocument, generateDocumentKey } from "../../src/client/index.js";
import { axeViolations } from "./axe-check.js";
import { browserFound, createDocument, eventually, sideBySide } from "./e2e-support.js";
import { cursorAt, requireBrowser, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-presence.test.ts");

/** The names on the others' carets a page shows (drawn by CSS from their data-name). */
const caretNames = (tab: Page) => tab.evaluate<string[]>(`Array.from(document.querySelectorAll(".cm-peer-name"), (label) => label.dataset.name)`);
/** The text under the others' selections a page shows. */
const selected = (tab: Page) => tab.locator(".cm-peer-selection").allTextContents();
const hereButton = (tab: Page) => tab.locator(".here-now-toggle");

const TEXT = "Launch checklist\n  [ ] Write the announcement\n  [ ] Test the upgrade";

describe.skipIf(!browserFound)("who is here, in Chromium", { timeout: 60_000 }, () => {
  const w = useEditorWorld();

  it("shows each other's name and cursor within 1 s, keeps a cursor on its word, and drops a closed page within 2 s", async () => {
    const id = await createDocument(w.service.url, "Launch", TEXT);
    const ada = await w.author(id, "Ada");
    const grace = await w.author(id, "Grace");
    await eventually(() => hereButton(ada.tab).textContent(), (text) => text === "2 here now", 5_000);

    // Ada selects "announcement" (the end of line 2, then a word back).
    await cursorAt(ada.tab, 1, "End");
    await ada.tab.keyboard.press("Control+Shift+ArrowLeft");
    const movedAt = Date.now();
    const seen = await eventually(() => selected(grace.tab), (texts) => texts.join() === "announcement", 1_000);
    const tookMs = Date.now() - movedAt;
    expect(seen).toEqual(["announcement"]);
    expect(tookMs).toBeLessThan(1_000);
    expect(await caretNames(grace.tab)).toEqual(["Ada"]);
    // Grace's caret (put at the start by the page) reaches Ada too.
    expect(await eventually(() => caretNames(ada.tab), (names) => names.join() === "Grace", 1_000)).toEqual(["Grace"]);
    console.log(`Ada's selection reached Grace's page in ${tookMs} ms`);

    // The "here now" list, by keyboard: named, labelled, opened and closed.
    expect(await hereButton(grace.tab).textContent()).toEqual("2 here now");
    await hereButton(grace.tab).focus();
    await grace.tab.keyboard.press("Enter");
    expect(await hereButton(grace.tab).getAttribute("aria-expanded")).toEqual("true");
    expect(await grace.tab.getByRole("list", { name: "People here now" }).locator("li").allTextContents()).toEqual(["Grace (you) editing", "Ada editing"]);
    expect(await axeViolations(grace.tab)).toEqual([]);
    await grace.tab.screenshot({ path: join(w.shots, "presence-here-now.png") });
    await grace.tab.keyboard.press("Escape");
    expect(await grace.tab.getByRole("list", { name: "People here now" }).isHidden()).toBe(true);
    expect(await grace.tab.evaluate<boolean>(`document.activeElement?.classList.contains("here-now-toggle") ?? false`)).toBe(true);

    // Grace types before Ada's word, in the same line and the line before: Ada's selection stays on it.
    await cursorAt(grace.tab, 1, "Home");
    await grace.tab.keyboard.type("Draft and ");
    await cursorAt(grace.tab, 0, "End");
    await grace.tab.keyboard.type(" for Monday");
    expect(await selected(grace.tab)).toEqual(["announcement"]);
    await eventually(() => ada.tab.locator(".cm-content").innerText(), (text) => text.includes("for Monday") && text.includes("Draft and"), 5_000);
    expect(await eventually(() => selected(grace.tab), (texts) => texts.join() === "announcement", 2_000)).toEqual(["announcement"]);
    // Ada's own selection went along too, and Grace's caret on Ada's page is after what she typed.
    expect(await ada.tab.evaluate<string>(`window.getSelection()?.toString() ?? ""`)).toEqual("announcement");

    await sideBySide(
      w.browser,
      [
        { caption: "Ada: Grace's caret after “for Monday”", png: await ada.tab.screenshot() },
        { caption: "Grace: Ada's selection on “announcement”", png: await grace.tab.screenshot() },
      ],
      join(w.shots, "presence-two-pages.png"),
    );
    await grace.tab.emulateMedia({ colorScheme: "dark" });
    await hereButton(grace.tab).click();
    expect(await axeViolations(grace.tab)).toEqual([]);
    await grace.tab.screenshot({ path: join(w.shots, "presence-dark.png") });
    await hereButton(grace.tab).click();

    // Ada closes her page: the goodbye goes with it.
    await ada.tab.close({ runBeforeUnload: true });
    const closedAt = Date.now();
    await eventually(() => hereButton(grace.tab).textContent(), (text) => text === "1 here now", 2_000);
    expect(Date.now() - closedAt).toBeLessThan(2_000);
    expect(await hereButton(grace.tab).textContent()).toEqual("1 here now");
    expect(await grace.tab.locator(".cm-peer-caret").count()).toEqual(0);
  });

  it("lists a reader of the read-only link as viewing, and shows the reader the editors' cursors", async () => {
    const id = await createDocument(w.service.url, "Launch", TEXT);
    const link = (await (await fetch(`${w.service.url}/api/v1/documents/${id}/read-link`, { method: "POST" })).json()) as { readId: string };
    const ada = await w.author(id, "Ada");
    const context = await w.context({ viewport: { width: 1100, height: 620 } });
    await context.addInitScript(`if (location.protocol === "http:") localStorage.setItem("folio.displayName", "Vic")`);
    const reader = await context.newPage();
    await reader.goto(`${w.service.url}/r/${link.readId}`);
    await reader.locator(".cm-content").waitFor();

    await cursorAt(ada.tab, 2, "End");
    expect(await eventually(() => caretNames(reader), (names) => names.join() === "Ada", 3_000)).toEqual(["Ada"]);
    expect(await eventually(() => hereButton(ada.tab).textContent(), (text) => text === "2 here now", 3_000)).toEqual("2 here now");
    await hereButton(ada.tab).click();
    expect(await ada.tab.getByRole("list", { name: "People here now" }).locator("li").allTextContents()).toEqual(["Ada (you) editing", "Vic viewing"]);
    await hereButton(reader).click();
    expect(await reader.getByRole("list", { name: "People here now" }).locator("li").allTextContents()).toEqual(["Vic (you) viewing", "Ada editing"]);
    // A viewer sends no cursor: Ada's page shows no caret.
    expect(await ada.tab.locator(".cm-peer-caret").count()).toEqual(0);
    expect(await axeViolations(reader)).toEqual([]);
    await reader.screenshot({ path: join(w.shots, "presence-read-only.png") });
  });

  it("on an encrypted document the service's presence list holds no name and no position in plain", async () => {
    const key = generateDocumentKey();
    const id = (await createEncryptedDocument(createClient({ baseUrl: w.service.url }), { title: "Secret plan", content: TEXT }, key)).id;
    const tabs: Page[] = [];
    for (const name of ["Ada", "Grace"]) {
      const context = await w.context({ viewport: { width: 1100, height: 620 } });
      await context.addInitScript(`if (location.protocol === "http:") localStorage.setItem("folio.displayName", ${JSON.stringify(name)})`);
      const tab = await context.newPage();
      await tab.goto(`${w.service.url}/d/${id}#key=${key}`);
      await tab.locator('.cm-content[contenteditable="true"]').waitFor({ timeout: 10_000 });
      tabs.push(tab);
    }
    const [ada, grace] = tabs as [Page, Page];
    await cursorAt(ada, 1, "End");
    await ada.keyboard.press("Control+Shift+ArrowLeft");
    expect(await eventually(() => selected(grace), (texts) => texts.join() === "announcement", 3_000)).toEqual(["announcement"]);
    expect(await eventually(() => caretNames(ada), (names) => names.join() === "Grace", 3_000)).toEqual(["Grace"]);

    const answer = await fetch(`${w.service.url}/api/v1/documents/${id}/presence`);
    expect(answer.status).toEqual(200);
    const raw = await answer.text();
    const list = JSON.parse(raw) as { clients: Array<Record<string, unknown>> };
    expect(list.clients.length).toEqual(2);
    for (const entry of list.clients) {
      expect(Object.keys(entry).sort()).toEqual(["clientId", "role", "state", "updatedAt"]);
      expect(Object.keys(entry["state"] as object)).toEqual(["sealed"]);
    }
    // As JSON strings (quoted), which base64url never holds, so no ciphertext matches by chance.
    for (const plain of ["Ada", "Grace", "cursor", "anchor", "head", "version", "displayName"]) expect(raw).not.toContain(JSON.stringify(plain));
  });
});
