/**
 * The page by keyboard alone, in Chromium against the real service: a new document takes the
 * focus in its editor, the outline typed as the page's hint says, CodeMirror's default keys in a
 * long document, and Escape closing the History and Tracker panels.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, eventually, expectConverged } from "./e2e-support.js";
import { requireBrowser, served, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-keyboard.test.ts");

/** What has the focus: its tag, class and text, enough to name it. */
const focused = (tab: Page) => tab.evaluate<string>(`(() => { const e = document.activeElement; return e ? e.tagName.toLowerCase() + "." + e.className + ":" + (e.textContent ?? "").slice(0, 20) : "none"; })()`);

/** Types each step: "{Key}" presses a key (playwright's names), anything else is typed as text. */
async function keys(tab: Page, steps: readonly string[]): Promise<void> {
  for (const step of steps) {
    const key = /^\{(.+)\}$/.exec(step)?.[1];
    if (key) await tab.keyboard.press(key);
    else await tab.keyboard.type(step);
  }
}

describe.skipIf(!browserFound)("the editor page by keyboard", { timeout: 60_000 }, () => {
  const w = useEditorWorld({ tracker: true });

  it("creates a document with the focus in its editor, and types the outline the hint describes", async () => {
    const tab = await (await w.context({ viewport: { width: 1000, height: 640 } })).newPage();
    await tab.goto(`${w.service.url}/`);
    await tab.getByLabel("Title").focus();
    await tab.keyboard.press("Control+a");
    await tab.keyboard.type("Launch plan");
    await tab.keyboard.press("Enter");
    await tab.waitForURL(/\/d\/[0-9a-f-]{36}$/);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    await expect.poll(() => focused(tab)).toMatch(/^div\.cm-content/);
    const id = /\/d\/([0-9a-f-]{36})$/.exec(tab.url())?.[1] ?? "";

    // Enter after a check-box line starts the next box; Enter on the empty box ends the checklist.
    await keys(tab, ["Launch", "{Enter}", "{Tab}", "[ ] Write notes", "{Enter}", "Test upgrade", "{Enter}", "{Enter}", "{Alt+ArrowRight}", "on staging"]);
    await keys(tab, ["{Enter}", "{Alt+ArrowLeft}", "{Alt+ArrowLeft}", "Announce"]);
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  [ ] Write notes\n  [ ] Test upgrade\n    on staging\nAnnounce");

    // Indenting a line keeps the cursor where it was in the text, at any column.
    await keys(tab, ["{ArrowUp}", "{End}", "{ArrowLeft}", "{Alt+ArrowRight}", "-"]);
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Launch\n  [ ] Write notes\n  [ ] Test upgrade\n      on stagin-g\nAnnounce");
  });

  it("goes to the end of a 2,000-line document with Ctrl+End and back with Ctrl+Home", async () => {
    const lines = Array.from({ length: 2000 }, (_, k) => `line ${k + 1}`);
    const id = await createDocument(w.service.url, "Long", lines.join("\n"));
    const { tab } = await w.author(id, "Ada");
    await tab.keyboard.press("Control+End");
    await tab.keyboard.type("!");
    await tab.keyboard.press("Control+Home");
    await tab.keyboard.type("#");
    // CodeMirror draws only the lines in view, so the service's text is what is compared.
    const expected = ["#line 1", ...lines.slice(1, -1), "line 2000!"].join("\n");
    expect(await eventually(async () => (await served(w.service.url, id)).content, (text) => text === expected)).toEqual(expected);
    expect(await tab.locator(".sync").getAttribute("data-status")).toEqual("synced");
  });

  it("closes a panel with Escape: the one holding the focus, whose button takes it back, else the one opened last", async () => {
    const id = await createDocument(w.service.url, "Panels", "a");
    const { tab } = await w.author(id, "Ada");
    const history = tab.getByRole("button", { name: "History" });
    const trackerButton = tab.getByRole("button", { name: "Tracker", exact: true });
    expect([await history.getAttribute("aria-expanded"), await trackerButton.getAttribute("aria-expanded")]).toEqual(["false", "true"]);

    await history.focus();
    await tab.keyboard.press("Enter");
    await expect.poll(() => focused(tab)).toEqual("h2.:History");
    await tab.keyboard.press("Tab");
    expect(await focused(tab)).toEqual("button.:Save version");
    await tab.keyboard.press("Escape");
    expect([await tab.locator(".history").isVisible(), await history.getAttribute("aria-expanded"), await focused(tab)]).toEqual([false, "false", "button.secondary:History"]);

    await tab.getByLabel("Tracker user").focus();
    await tab.keyboard.press("Escape");
    expect([await tab.locator(".tracker").isVisible(), await focused(tab)]).toEqual([false, "button.secondary:Tracker"]);
    await tab.keyboard.press("Enter");
    expect(await tab.locator(".tracker").isVisible()).toEqual(true);

    // From the editor, Escape closes the panel opened last and the focus stays in the text.
    await history.click();
    await tab.locator(".cm-line").first().click();
    await tab.keyboard.press("Escape");
    expect([await tab.locator(".history").isVisible(), await tab.locator(".tracker").isVisible()]).toEqual([false, true]);
    await tab.keyboard.type("b");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("ab");
  });
  it("saves a title left without Enter, and pastes several lines under an indented line keeping their indentation", async () => {
    const id = await createDocument(w.service.url, "Draft", "Plan\n  Tasks");
    const tab = await (await w.context({ viewport: { width: 1000, height: 560 } })).newPage();
    await tab.goto(`${w.service.url}/d/${id}`);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();

    // A new title typed, then Tab away: it is saved, no Enter needed.
    await tab.locator("#doc-title").fill("Draft two");
    await tab.keyboard.press("Tab");
    await expect.poll(async () => ((await (await fetch(`${w.service.url}/api/v1/documents/${id}`)).json()) as { title: string }).title).toEqual("Draft two");

    // Three lines pasted at the end of "  Tasks": the second and third land under it, as they were relative to each other.
    await tab.locator(".cm-line").nth(1).click();
    await tab.keyboard.press("End");
    await tab.evaluate(`(() => {
      const data = new DataTransfer();
      data.setData("text/plain", " list\\n  write\\n    check");
      document.querySelector(".cm-content").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    })()`);
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("Plan\n  Tasks list\n  write\n    check");
  });
});
