/**
 * The history panel and the ways back, in Chromium against the real service: each version's
 * changes against the one before it, saved versions named as such, the list following the document
 * live, a rollback undone from the page, and a delete undone (or restored by another page).
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, expectConverged } from "./e2e-support.js";
import { cursorAt, requireBrowser, served, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-history.test.ts");

/** The history list as shown, newest first: each entry's "v<n> · <name>" line. */
const entries = (tab: Page) => tab.locator(".history-type").allTextContents();

describe.skipIf(!browserFound)("the history panel in Chromium", { timeout: 60_000 }, () => {
  const w = useEditorWorld();

  it("follows the document live, names saved versions, and shows each version's changes against the one before", async () => {
    const id = await createDocument(w.service.url, "Release plan", "Release 2.0\n  [ ] Write notes\n  [ ] Test upgrade\n  [ ] Announce");
    const ada = await w.author(id, "Ada");
    const grace = await w.author(id, "Grace");
    await ada.tab.getByRole("button", { name: "History" }).click();
    await expect.poll(() => entries(ada.tab)).toEqual(["v1 · Createdcurrent"]);

    // Ada's own edit shows up in her list without a refresh; then she saves it as a version.
    // Home goes to the start of the indentation (CodeMirror's default keymap): "  |[ ]".
    await cursorAt(ada.tab, 1, "Home");
    await ada.tab.keyboard.press("ArrowRight");
    await ada.tab.keyboard.press("Delete");
    await ada.tab.keyboard.type("x");
    await expectConverged(w.service.url, id, [ada.tab, grace.tab]);
    const edited = (await served(w.service.url, id)).history.at(-1)?.version;
    await expect.poll(() => entries(ada.tab), { timeout: 10_000 }).toEqual([`v${edited} · Current text`, "v1 · Created"]);
    await ada.tab.getByRole("button", { name: "Save version" }).click();
    await ada.tab.getByText("Version saved.").waitFor();
    // The notice can come before the list's next refresh; the list names the version once it has it.
    await expect.poll(async () => (await entries(ada.tab))[0], { timeout: 10_000 }).toMatch(/^v\d+ · Saved versioncurrent$/);
    const saved = Number(/^v(\d+)/.exec((await entries(ada.tab))[0] ?? "")?.[1]);
    expect(saved).toBeGreaterThanOrEqual(Number(edited));

    // Grace's edit on her page: Ada's list follows it; the saved version keeps its name.
    await cursorAt(grace.tab, 3, "End");
    await grace.tab.keyboard.type(" on Monday via blog");
    const text = await expectConverged(w.service.url, id, [ada.tab, grace.tab]);
    expect(text).toEqual("Release 2.0\n  [x] Write notes\n  [ ] Test upgrade\n  [ ] Announce on Monday via blog");
    const head = (await served(w.service.url, id)).history.at(-1)?.version;
    await expect.poll(() => entries(ada.tab), { timeout: 10_000 }).toEqual([`v${head} · Current text`, `v${saved} · Saved version`, "v1 · Created"]);

    // Its changes against the saved version: the changed line marked, the new words highlighted.
    await ada.tab.locator(".history-entry").first().getByRole("button", { name: /^View version/ }).click();
    expect(await ada.tab.locator(".diff-caption").textContent()).toEqual(`Changes since version ${saved}`);
    expect(await ada.tab.locator(".diff-removed .diff-text").allTextContents()).toEqual(["removed:   [ ] Announce"]);
    expect(await ada.tab.locator(".diff-added .diff-text").allTextContents()).toEqual(["added:   [ ] Announce on Monday via blog"]);
    expect(await ada.tab.locator(".diff-added ins").allTextContents()).toEqual([" on Monday via blog"]);
    expect(await ada.tab.locator(".diff-same .diff-text").allTextContents()).toEqual(["Release 2.0", "  [x] Write notes", "  [ ] Test upgrade"]);
    await ada.tab.screenshot({ path: join(w.shots, "history-diff.png") });

    // The preview of the newest state follows it too.
    await grace.tab.keyboard.type("!");
    await expectConverged(w.service.url, id, [ada.tab, grace.tab]);
    const next = (await served(w.service.url, id)).history.at(-1)?.version;
    await expect.poll(() => ada.tab.locator(".history-preview h3").textContent(), { timeout: 10_000 }).toEqual(`Version ${next}: Current text`);
    expect(await ada.tab.locator(".diff-added ins").allTextContents()).toEqual([" on Monday via blog!"]);

    // The saved version against the first: one character in one line.
    await ada.tab.getByRole("button", { name: `View version ${saved}`, exact: true }).click();
    expect(await ada.tab.locator(".diff-removed del").allTextContents()).toEqual([" "]);
    expect(await ada.tab.locator(".diff-added ins").allTextContents()).toEqual(["x"]);
  });

  it("rolls back at once and offers an Undo, which brings the text before the rollback back to every page", async () => {
    const id = await createDocument(w.service.url, "Plan", "one\ntwo");
    const ada = await w.author(id, "Ada");
    const grace = await w.author(id, "Grace");
    await cursorAt(grace.tab, 1, "End");
    await grace.tab.keyboard.type(" and three");
    const before = await expectConverged(w.service.url, id, [ada.tab, grace.tab]);

    await ada.tab.getByRole("button", { name: "History" }).click();
    await ada.tab.getByRole("button", { name: "View version 1", exact: true }).click();
    await ada.tab.getByRole("button", { name: "Roll back to version 1" }).click();
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab], "one\ntwo")).toEqual("one\ntwo");
    await ada.tab.getByText("Rolled back to version 1.").waitFor();
    // The Undo has the focus: Enter takes the rollback back.
    expect(await ada.tab.evaluate<string>("document.activeElement.textContent")).toEqual("Undo");
    await ada.tab.screenshot({ path: join(w.shots, "history-undo.png") });
    await ada.tab.keyboard.press("Enter");
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab], before)).toEqual(before);
    await ada.tab.getByText("Rollback undone.").waitFor();

    const { history } = await served(w.service.url, id);
    expect(history.slice(-3).map((entry) => [entry.changeType, entry.content])).toEqual([
      ["UPDATED", before],
      ["ROLLED_BACK", "one\ntwo"],
      ["ROLLED_BACK", before],
    ]);
  });

  it("deletes at once with an Undo on the deleting page; other pages show the banner, and a restore brings both back", async () => {
    const id = await createDocument(w.service.url, "Doomed", "keep me");
    const ada = await w.author(id, "Ada");
    const grace = await w.author(id, "Grace");

    // A rename shows on the other page too.
    await ada.tab.getByLabel("Document title").fill("Doomed plan");
    await ada.tab.getByRole("button", { name: "Rename" }).click();
    await expect.poll(() => grace.tab.getByLabel("Document title").inputValue(), { timeout: 10_000 }).toEqual("Doomed plan");

    await ada.tab.getByRole("button", { name: "Delete" }).click();
    await ada.tab.locator(".banner").getByText("You deleted this document").waitFor({ timeout: 10_000 });
    await grace.tab.locator(".banner").getByText("This document was deleted").waitFor({ timeout: 10_000 });
    for (const tab of [ada.tab, grace.tab]) expect(await tab.locator(".cm-content").getAttribute("contenteditable")).toEqual("false");
    expect(await ada.tab.evaluate<string>("document.activeElement.textContent")).toEqual("Undo");
    // Opened afresh by its link, a deleted document says so and offers the restore.
    const lateTab = await (await w.context()).newPage();
    await lateTab.goto(`${w.service.url}/d/${id}`);
    await lateTab.getByRole("heading", { name: "No such document" }).waitFor();
    expect(await lateTab.getByRole("button", { name: "Restore it" }).isVisible()).toEqual(true);

    await ada.tab.keyboard.press("Enter");
    for (const tab of [ada.tab, grace.tab]) {
      await tab.locator(".banner").waitFor({ state: "hidden", timeout: 10_000 });
      await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    }
    // Deleted again by Grace: Ada's page now offers a restore, not an undo.
    await grace.tab.getByRole("button", { name: "Delete" }).click();
    await ada.tab.locator(".banner").getByText("This document was deleted").waitFor({ timeout: 10_000 });
    await ada.tab.locator(".banner").getByRole("button", { name: "Restore" }).click();
    await grace.tab.locator(".banner").waitFor({ state: "hidden", timeout: 10_000 });

    await cursorAt(ada.tab, 0, "End");
    await ada.tab.keyboard.type(" again");
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab])).toEqual("keep me again");
    // Undo and redo take back one's own typing, and the other page follows.
    await cursorAt(grace.tab, 0, "End");
    await grace.tab.keyboard.press("Control+z");
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab])).toEqual("keep me again");
    await ada.tab.keyboard.press("Control+z");
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab])).toEqual("keep me");
    await ada.tab.keyboard.press("Control+Shift+Z");
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab])).toEqual("keep me again");
  });
});
