/** The ways back, in Chromium against the real service: a delete undone (or restored by another page). */
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, expectConverged } from "./e2e-support.js";
import { cursorAt, requireBrowser, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-history.test.ts");

describe.skipIf(!browserFound)("the history panel in Chromium", { timeout: 60_000 }, () => {
  const w = useEditorWorld();

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
