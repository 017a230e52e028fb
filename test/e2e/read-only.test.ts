/**
 * Read-only links in Chromium against the real service (docs/sharing.md): the Share panel used by
 * keyboard alone makes a read-only link; a second browser opens it and sees the text, marked
 * read-only, following the edit page live; typing into it changes nothing; a new link makes the old
 * page say that its link no longer works, and stopping sharing makes the link answer 404.
 */
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, editorText, eventually, expectConverged } from "./e2e-support.js";
import { cursorAt, requireBrowser, served, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/read-only.test.ts");

/** What has the focus: its tag, class and text, enough to name it. */
const focused = (tab: Page) => tab.evaluate<string>(`(() => { const e = document.activeElement; return e ? e.tagName.toLowerCase() + "." + e.className + ":" + (e.textContent ?? "").slice(0, 24) : "none"; })()`);
const clipboard = (tab: Page) => tab.evaluate<string>("navigator.clipboard.readText()");
const status = (tab: Page) => tab.locator(".sync").getAttribute("data-status");

/** The service's document: its text and version. */
async function document(url: string, id: string): Promise<{ content: string; version: number }> {
  const body = (await (await fetch(`${url}/api/v1/documents/${id}`)).json()) as { content: string; version: number };
  return { content: body.content, version: body.version };
}

describe.skipIf(!browserFound)("read-only links in Chromium", { timeout: 90_000 }, () => {
  const w = useEditorWorld();

  /** A reader's page of its own browser context, which records every request it sends. */
  async function reader(link: string, viewport = { width: 1000, height: 560 }): Promise<{ tab: Page; context: BrowserContext; requests: string[] }> {
    const context = await w.context({ viewport });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: w.service.url });
    const tab = await context.newPage();
    const requests: string[] = [];
    tab.on("request", (request) => requests.push(`${request.method()} ${request.url()} ${request.postData() ?? ""}`));
    await tab.goto(link);
    return { tab, context, requests };
  }

  it("shares by keyboard, follows edits live, ignores typing, and stops working when replaced or unshared", async () => {
    const id = await createDocument(w.service.url, "Launch plan", "Launch\n  [ ] Write notes\n  [x] Test upgrade\n  [ ] Announce");
    const ada = await w.author(id, "Ada", { width: 1100, height: 680 });
    await ada.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: w.service.url });
    const share = ada.tab.getByRole("button", { name: "Share", exact: true });

    // The Share panel by keyboard: the edit link, then a read-only link made and copied.
    await share.focus();
    await ada.tab.keyboard.press("Enter");
    await expect.poll(() => focused(ada.tab)).toEqual("h2.:Share");
    await ada.tab.getByText("This document is not shared read-only.").waitFor();
    expect(await ada.tab.locator(".share-link-edit").inputValue()).toEqual(`${w.service.url}/d/${id}`);
    await ada.tab.keyboard.press("Tab");
    await ada.tab.keyboard.press("Tab");
    expect(await focused(ada.tab)).toEqual("button.secondary copy-edit:Copy");
    await ada.tab.keyboard.press("Enter");
    await expect.poll(() => clipboard(ada.tab)).toEqual(`${w.service.url}/d/${id}`);
    await ada.tab.keyboard.press("Tab");
    expect(await focused(ada.tab)).toEqual("button.share-make:Make a read-only link");
    await ada.tab.keyboard.press("Enter");
    await ada.tab.getByText("Made a read-only link.").waitFor();
    const firstLink = await ada.tab.locator(".share-link-read").inputValue();
    const readId = (await (await fetch(`${w.service.url}/api/v1/documents/${id}/read-link`)).json()) as { readId: string };
    expect(firstLink).toEqual(`${w.service.url}/r/${readId.readId}`);
    expect(await focused(ada.tab)).toEqual("button.secondary copy-read:Copy");
    await ada.tab.keyboard.press("Enter");
    await expect.poll(() => clipboard(ada.tab)).toEqual(firstLink);
    await ada.tab.screenshot({ path: join(w.shots, "share-dialog.png") });

    // The reader: the text, marked read-only, live; nothing it sends or shows names the edit id.
    const bob = await reader(firstLink);
    await bob.tab.locator(".read-only-mark").waitFor();
    expect(await bob.tab.locator(".read-only-mark").textContent()).toEqual("Read-only");
    expect(await bob.tab.locator(".read-title").textContent()).toEqual("Launch plan");
    expect(await bob.tab.title()).toEqual("Launch plan (read-only) · Folio");
    expect(await editorText(bob.tab)).toEqual("Launch\n  [ ] Write notes\n  [x] Test upgrade\n  [ ] Announce");
    expect(await bob.tab.locator(".cm-content").getAttribute("contenteditable")).toEqual("false");
    expect(await bob.tab.locator(".cm-content").getAttribute("aria-readonly")).toEqual("true");
    await expect.poll(() => status(bob.tab)).toEqual("live");

    await cursorAt(ada.tab, 3, "End");
    await ada.tab.keyboard.type(" on Monday");
    const edited = await expectConverged(w.service.url, id, [ada.tab]);
    expect(await eventually(() => editorText(bob.tab), (text) => text === edited)).toEqual(edited);

    // Typing, deleting, pasting and cutting on the read-only page change nothing, here or in the service.
    const before = await document(w.service.url, id);
    await cursorAt(bob.tab, 1, "End");
    // Shift+Home selects to the indentation, once more to the line's start (CodeMirror's default keys).
    await bob.tab.keyboard.press("Shift+Home");
    await bob.tab.keyboard.press("Shift+Home");
    await bob.tab.keyboard.press("Control+c");
    await expect.poll(() => clipboard(bob.tab)).toEqual("  [ ] Write notes");
    await bob.tab.keyboard.type("typed by a reader");
    for (const key of ["Enter", "Backspace", "Delete", "Control+x", "Control+v", "Alt+ArrowRight", "Control+z"]) await bob.tab.keyboard.press(key);
    await bob.tab.locator(".read-note").click();
    expect(await editorText(bob.tab)).toEqual(edited);
    expect(await document(w.service.url, id)).toEqual(before);
    // One more edit on the edit page, seen by the reader: anything the reader had sent would be in by then.
    await cursorAt(ada.tab, 0, "End");
    await ada.tab.keyboard.type(" v2");
    const next = await expectConverged(w.service.url, id, [ada.tab]);
    expect(await eventually(() => editorText(bob.tab), (text) => text === next)).toEqual(next);
    expect(next).toEqual(edited.replace("Launch", "Launch v2"));
    expect((await document(w.service.url, id)).content).toEqual(next);
    expect(bob.requests.filter((request) => request.includes(id))).toEqual([]);
    // Besides reading, the reader only says it is here (docs/api.md, "Presence": a viewer's entry, never stored).
    const announced = new RegExp(`^PUT ${w.service.url}/api/v1/read/[0-9a-f-]+/presence/[0-9a-f]+ `);
    expect(bob.requests.filter((request) => !request.startsWith("GET ") && !announced.test(request))).toEqual([]);
    expect(bob.requests.filter((request) => announced.test(request)).length).toBeGreaterThan(0);
    // Its history, read-only: the versions and their changes, nothing to roll back, restore or save.
    await bob.tab.getByRole("button", { name: "History" }).click();
    const head = (await served(w.service.url, id)).history.at(-1)?.version;
    await expect.poll(() => bob.tab.locator(".history-type").first().textContent()).toEqual(`v${head} · Current text`);
    expect(await bob.tab.locator(".history-type").last().textContent()).toEqual("v1 · Created");
    await bob.tab.locator(".history-entry").first().getByRole("button", { name: /^View version/ }).click();
    // Against the version before it (v1, or a milestone the service kept on a pause in the typing).
    expect(await bob.tab.locator(".diff-added .diff-text").allTextContents()).toContain("added: Launch v2");
    const count = await bob.tab.locator(".history-entry").count();
    // Nothing on the side changes the document: the history's View buttons and the Export panel's downloads.
    expect(await bob.tab.locator(".side .history button").allTextContents()).toEqual(Array.from({ length: count }, () => "View"));
    expect(await bob.tab.locator(".side .transfer button").allTextContents()).toEqual(["Markdown", "OPML", "Text"]);
    expect(await bob.tab.locator(".side button").count()).toEqual(count + 3);
    expect(await bob.tab.content()).not.toContain(id);
    await bob.tab.screenshot({ path: join(w.shots, "read-only-page.png") });

    // A new read-only link: the old page says its link no longer works (at the next change it would have shown).
    const rotate = ada.tab.getByRole("button", { name: "New read-only link" });
    await rotate.focus();
    await ada.tab.keyboard.press("Enter");
    await ada.tab.getByText("Made a new read-only link: the old one no longer works.").waitFor();
    const secondLink = await ada.tab.locator(".share-link-read").inputValue();
    expect(secondLink).not.toEqual(firstLink);
    await cursorAt(ada.tab, 2, "End");
    await ada.tab.keyboard.type("!");
    const third = await expectConverged(w.service.url, id, [ada.tab]);
    await expect.poll(() => status(bob.tab), { timeout: 15_000 }).toEqual("revoked");
    expect(await bob.tab.locator(".sync").textContent()).toEqual("Link no longer works");
    expect(await bob.tab.locator(".banner").textContent()).toMatch(/^This read-only link no longer works/);
    expect(await editorText(bob.tab)).toEqual(next);
    expect(await bob.tab.locator(".read-note").isVisible()).toEqual(false);
    await bob.tab.screenshot({ path: join(w.shots, "read-only-revoked.png") });

    // The new link works, on a phone's width too.
    const carol = await reader(secondLink, { width: 360, height: 640 });
    await carol.tab.locator(".read-only-mark").waitFor();
    expect(await editorText(carol.tab)).toEqual(third);
    await carol.tab.screenshot({ path: join(w.shots, "read-only-360.png") });

    // Stop sharing: the link answers 404, and the page says so.
    const stop = ada.tab.getByRole("button", { name: "Stop sharing read-only" });
    await stop.focus();
    await ada.tab.keyboard.press("Enter");
    await ada.tab.getByText("Stopped sharing read-only: the read-only link no longer works.").waitFor();
    expect(await focused(ada.tab)).toEqual("button.share-make:Make a read-only link");
    const secondId = secondLink.split("/r/")[1] ?? "";
    expect((await fetch(`${w.service.url}/api/v1/read/${secondId}`)).status).toEqual(404);
    await carol.tab.reload();
    await carol.tab.getByRole("heading", { name: "This read-only link does not work" }).waitFor();

    // Escape closes the panel (panels.ts), the focus going back to its button.
    await ada.tab.locator(".share-make").focus();
    await ada.tab.keyboard.press("Escape");
    expect([await ada.tab.locator(".share").isVisible(), await focused(ada.tab)]).toEqual([false, "button.secondary:Share"]);
    expect((await served(w.service.url, id)).content).toEqual(third);
  });

  it("says when the document is deleted, offline or restored, and why a link does not open", async () => {
    const id = await createDocument(w.service.url, "Notes", "one\ntwo");
    const { readId } = (await (await fetch(`${w.service.url}/api/v1/documents/${id}/read-link`, { method: "POST" })).json()) as { readId: string };
    const bob = await reader(`${w.service.url}/r/${readId}`);
    await expect.poll(() => status(bob.tab)).toEqual("live");

    expect((await fetch(`${w.service.url}/api/v1/documents/${id}`, { method: "DELETE" })).status).toEqual(204);
    await expect.poll(() => status(bob.tab)).toEqual("deleted");
    expect([await bob.tab.locator(".sync").textContent(), await bob.tab.locator(".banner").textContent(), await editorText(bob.tab)]).toEqual([
      "Document deleted",
      "The document was deleted. The text below is its last; this page follows it again if it is restored.",
      "one\ntwo",
    ]);
    expect((await fetch(`${w.service.url}/api/v1/documents/${id}/restore`, { method: "POST" })).status).toEqual(200);
    await expect.poll(() => status(bob.tab)).toEqual("live");
    expect(await bob.tab.locator(".banner").isVisible()).toEqual(false);

    // The network gone: the page says so and follows again once it is back.
    await bob.context.setOffline(true);
    await expect.poll(() => status(bob.tab)).toEqual("offline");
    expect(await bob.tab.locator(".sync").textContent()).toEqual("Offline — retrying");
    await bob.context.setOffline(false);
    // The feed follows again at its next attempt, after the retry wait it was in (backoff with jitter).
    await expect.poll(() => status(bob.tab), { timeout: 10_000 }).toEqual("live");
    await (await fetch(`${w.service.url}/api/v1/documents/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Notes", content: "one\ntwo\nthree" }) })).arrayBuffer();
    expect(await eventually(() => editorText(bob.tab), (text) => text === "one\ntwo\nthree", 20_000)).toEqual("one\ntwo\nthree");
    await expect.poll(() => status(bob.tab)).toEqual("live");

    // A link that does not open: the document deleted (its history still answers), or the link gone.
    await fetch(`${w.service.url}/api/v1/documents/${id}`, { method: "DELETE" });
    await bob.tab.reload();
    await bob.tab.getByRole("heading", { name: "The document is deleted" }).waitFor();
    await fetch(`${w.service.url}/api/v1/documents/${id}/read-link`, { method: "DELETE" });
    await bob.tab.reload();
    await bob.tab.getByRole("heading", { name: "This read-only link does not work" }).waitFor();
  });
});
