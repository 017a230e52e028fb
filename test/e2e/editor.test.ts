/**
 * The editor page in a real browser (Debian's chromium through playwright-core) against the real
 * service on 127.0.0.1: the start page, two authors typing at once, and their edits of one line
 * merged. Skipped with a message without a browser; failing in CI, where .ci/run installs it.
 * Screenshots go to docs/screenshots (e2e-world.ts). The tracker actions and a service without a
 * tracker: editor-tracker.test.ts; unsent edits: editor-persistence.test.ts; history, rollback and
 * delete: editor-history.test.ts; the keyboard: editor-keyboard.test.ts.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, expectConverged, sideBySide } from "./e2e-support.js";
import { cursorAt, requireBrowser, served, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor.test.ts");

/** The words of some typed texts, sorted. */
const wordsOf = (...typed: string[]) => typed.flatMap((text) => text.split(" ")).filter((word) => word !== "").sort();

/** The words a line holds after `start`, which it must begin with, sorted. */
function wordsAdded(line: string, start: string): string[] {
  expect(line.startsWith(start)).toEqual(true);
  return wordsOf(line.slice(start.length));
}

/** Records in the page every text its status line shows, and whether its editor ever turned read-only. */
const STATUS_LOG = `
  window.__statuses = [];
  window.__readOnly = false;
  new MutationObserver(() => {
    const status = document.querySelector(".sync")?.textContent ?? "";
    if (window.__statuses.at(-1) !== status) window.__statuses.push(status);
    if (document.querySelector(".cm-content")?.getAttribute("contenteditable") !== "true") window.__readOnly = true;
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
`;

describe.skipIf(!browserFound)("the editor page in Chromium", { timeout: 45_000 }, () => {
  const w = useEditorWorld({ tracker: true });
  const author = (id: string, name: string, viewport?: { width: number; height: number }) => w.author(id, name, viewport);

  it("serves the start page, which creates a document and lists it as recently opened", async () => {
    const context = await w.context({ viewport: { width: 360, height: 640 } });
    const tab = await context.newPage();
    await tab.goto(`${w.service.url}/`);
    await tab.getByLabel("Title").fill("Launch plan");
    await tab.getByRole("button", { name: "Create document" }).click();
    await tab.waitForURL(/\/d\/[0-9a-f-]{36}$/);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    await tab.goto(`${w.service.url}/`);
    await expect.poll(() => tab.locator(".recent-list a").allTextContents()).toEqual(["Launch plan"]);
    const scrollWidth = await tab.evaluate<number>("document.documentElement.scrollWidth");
    expect(scrollWidth).toBeLessThanOrEqual(360);
  });

  it("merges two authors typing at once in different lines and in the same line", async () => {
    const id = await createDocument(w.service.url, "Release plan", "Release 2.0\n  [x] Write notes\n  [ ] Test upgrade\n  [ ] Announce");
    const ada = await author(id, "Ada", { width: 1000, height: 640 });
    const grace = await author(id, "Grace", { width: 360, height: 640 });
    console.log(`time from navigation to an editable document: ${ada.openedInMs} ms (first page), ${grace.openedInMs} ms (second)`);
    console.log(`page bundle: ${w.page.bundle.js} bytes of JavaScript (${w.page.bundle.jsGzip} gzipped), ${w.page.bundle.css} bytes of CSS`);

    await cursorAt(ada.tab, 1, "End");
    await cursorAt(grace.tab, 3, "End");
    const editorTop = async () => (await grace.tab.locator(".editor-host").boundingBox())?.y;
    const topBefore = await editorTop();
    expect(topBefore).toBeGreaterThan(100);
    await Promise.all([ada.tab.keyboard.type(" (Ada)", { delay: 25 }), grace.tab.keyboard.type(" on Monday", { delay: 25 })]);
    const first = await expectConverged(w.service.url, id, [ada.tab, grace.tab]);
    // Saving… and Saved came and went while typing: nothing above the editor moved.
    expect(await editorTop()).toEqual(topBefore);
    expect(first).toEqual("Release 2.0\n  [x] Write notes (Ada)\n  [ ] Test upgrade\n  [ ] Announce on Monday");

    // Grace's cursor stayed where she typed while Ada's characters came in above it: she goes on there.
    await grace.tab.keyboard.type("!");
    await cursorAt(ada.tab, 2, "End");
    // Enter after a check-box line starts a box; Enter again takes it away.
    await ada.tab.keyboard.press("Enter");
    await ada.tab.keyboard.press("Enter");
    await ada.tab.keyboard.type("  staging first");
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab])).toEqual(
      "Release 2.0\n  [x] Write notes (Ada)\n  [ ] Test upgrade\n    staging first\n  [ ] Announce on Monday!",
    );

    // Both save a version; the history names them, as unverified claims.
    for (const tab of [grace.tab, ada.tab]) {
      await tab.getByRole("button", { name: "History" }).click();
      await tab.getByRole("button", { name: "Save version" }).click();
      await tab.getByText("Version saved.").waitFor();
    }
    await expect.poll(() => ada.tab.locator(".history-by").allTextContents()).toEqual([
      "changed by Ada (unverified)",
      "changed by Grace (unverified)",
      "changed by an unnamed client ",
    ]);
    await cursorAt(ada.tab, 3, "End");
    await cursorAt(grace.tab, 4, "End");
    await grace.tab.evaluate("window.scrollTo(0, 0)");
    await sideBySide(
      w.browser,
      [
        { caption: "Ada, 1000 px wide", png: await ada.tab.screenshot() },
        { caption: "Grace, 360 px wide", png: await grace.tab.screenshot() },
      ],
      join(w.shots, "editor-two-authors.png"),
    );
    expect(await grace.tab.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await ada.tab.getByRole("button", { name: "View version" }).last().click();
    expect(await ada.tab.locator(".version-text").textContent()).toEqual("Release 2.0\n  [x] Write notes\n  [ ] Test upgrade\n  [ ] Announce");
    await ada.tab.screenshot({ path: join(w.shots, "history-panel.png"), fullPage: true });

    // Rolling back to version 1 brings its text to both pages.
    await ada.tab.getByRole("button", { name: "Roll back to version 1" }).click();
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab], "Release 2.0\n  [x] Write notes\n  [ ] Test upgrade\n  [ ] Announce")).toEqual("Release 2.0\n  [x] Write notes\n  [ ] Test upgrade\n  [ ] Announce");

    // After the rollback, the same line at once: both pages' words are merged into it, nobody is
    // asked (keystroke by keystroke: the next test).
    await cursorAt(ada.tab, 2, "End");
    await cursorAt(grace.tab, 2, "End");
    await Promise.all([ada.tab.keyboard.type(" on staging", { delay: 25 }), grace.tab.keyboard.type(" + rollback", { delay: 25 })]);
    const second = (await expectConverged(w.service.url, id, [ada.tab, grace.tab])).split("\n");
    expect([second.length, second[0], second[1], second[3]]).toEqual([4, "Release 2.0", "  [x] Write notes", "  [ ] Announce"]);
    expect(wordsAdded(second[2]!, "  [ ] Test upgrade")).toEqual(wordsOf(" on staging", " + rollback"));
    expect(await grace.tab.getByRole("button", { name: "Keep mine" }).count()).toEqual(0);
  });

  it("keeps both people's words when they type at once at the end of one line, asks nobody, and leaves each cursor after its own words", async () => {
    const id = await createDocument(w.service.url, "Launch", "Launch\n  [ ] Write notes\n  [ ] Announce");
    const ann = await author(id, "Ann", { width: 700, height: 500 });
    const bob = await author(id, "Bob", { width: 700, height: 500 });
    // Every status each page shows from here on, and whether its editor ever stops taking keys.
    for (const tab of [ann.tab, bob.tab]) await tab.evaluate(STATUS_LOG);
    const annTyped = " Monday via blog";
    const bobTyped = " Tuesday via email";
    await cursorAt(ann.tab, 2, "End");
    await cursorAt(bob.tab, 2, "End");
    // Keystroke by keystroke, both at once, nobody waiting for "Saved".
    for (let k = 0; k < Math.max(annTyped.length, bobTyped.length); k++) {
      await Promise.all([ann.tab.keyboard.type(annTyped[k] ?? ""), bob.tab.keyboard.type(bobTyped[k] ?? "")]);
    }
    const text = await expectConverged(w.service.url, id, [ann.tab, bob.tab]);
    const [top, notes, line, ...more] = text.split("\n");
    console.log(`typed at once into one line: ${JSON.stringify(line)}`);
    expect([top, notes, more]).toEqual(["Launch", "  [ ] Write notes", []]);
    // Every character both typed, once (the line is as long as the three together), in whole words.
    expect(line!.length).toEqual("  [ ] Announce".length + annTyped.length + bobTyped.length);
    expect(wordsAdded(line!, "  [ ] Announce")).toEqual(wordsOf(annTyped, bobTyped));

    // No page asked or stopped: never "Conflict", never read-only, no "Keep mine" anywhere.
    for (const tab of [ann.tab, bob.tab]) {
      expect(await tab.evaluate<string[]>("window.__statuses.filter((status) => status === 'Conflict')")).toEqual([]);
      expect(await tab.evaluate<boolean>("window.__readOnly")).toEqual(false);
      expect(await tab.locator(".cm-content").getAttribute("contenteditable")).toEqual("true");
      expect([await tab.locator(".conflict").count(), await tab.getByRole("button", { name: "Keep mine" }).count()]).toEqual([0, 0]);
      expect(await tab.locator(".sync").textContent()).toEqual("Saved");
    }
    // Each cursor stayed right after its own last word: the next key lands there.
    await Promise.all([ann.tab.keyboard.type("!"), bob.tab.keyboard.type("?")]);
    const after = (await expectConverged(w.service.url, id, [ann.tab, bob.tab])).split("\n")[2]!;
    expect([after.includes("blog!"), after.includes("email?"), after.length]).toEqual([true, true, line!.length + 2]);

    const { history } = await served(w.service.url, id);
    expect(history.at(-1)?.content).toEqual(text.replace(line!, after));
    await sideBySide(
      w.browser,
      [
        { caption: "Ann's page: she typed “ Monday via blog”, then “!”", png: await ann.tab.screenshot() },
        { caption: "Bob's page: he typed “ Tuesday via email” at once, then “?”", png: await bob.tab.screenshot() },
      ],
      join(w.shots, "merged-line.png"),
    );
  });

  it("merges two authors' edits of one line, both kept and the service's first, without asking", async () => {
    const id = await createDocument(w.service.url, "Merge", "alpha\nbeta\ngamma");
    const ada = await author(id, "Ada");
    const grace = await author(id, "Grace");

    /** Grace types offline at the end of `line`, then Ada online at the same place; then Grace is back online. */
    const bothType = async (line: number, byGrace: string, byAda: string) => {
      await grace.context.setOffline(true);
      await cursorAt(grace.tab, line, "End");
      await grace.tab.keyboard.type(byGrace);
      await expect.poll(() => grace.tab.locator(".sync").textContent(), { timeout: 10_000 }).toEqual("Offline — edits kept on this device");
      await cursorAt(ada.tab, line, "End");
      await ada.tab.keyboard.type(byAda);
      await expectConverged(w.service.url, id, [ada.tab]);
      await grace.context.setOffline(false);
      const text = await expectConverged(w.service.url, id, [ada.tab, grace.tab]);
      expect(await grace.tab.locator(".conflict").isVisible()).toEqual(false);
      return text;
    };

    // Ada's words reached the service first, so they come first; Grace's follow, nothing is asked.
    expect(await bothType(1, " by Grace", " by Ada")).toEqual("alpha\nbeta by Ada by Grace\ngamma");
    // Once more on another line.
    expect(await bothType(2, " (Grace again)", " (Ada again)")).toEqual("alpha\nbeta by Ada by Grace\ngamma (Ada again) (Grace again)");
  });

  it("follows the document by its event stream, not by long polls", async () => {
    const id = await createDocument(w.service.url, "Stream", "one");
    const context = await w.context();
    const tab = await context.newPage();
    const feeds: string[] = [];
    tab.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.endsWith("/events") || path.endsWith("/changes")) feeds.push(`${request.method()} ${path.replace(id, "{id}")}${new URL(request.url()).search}`);
    });
    await w.open(tab, id);
    const replaced = await fetch(`${w.service.url}/api/v1/documents/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Stream", content: "one\ntwo" }) });
    expect(replaced.status).toEqual(200);

    expect(await expectConverged(w.service.url, id, [tab])).toEqual("one\ntwo");
    expect(feeds).toEqual(["GET /api/v1/documents/{id}/events?since=1"]);
  });
});
