/**
 * The editor page in a real browser (Debian's chromium through playwright-core) against the real
 * service on 127.0.0.1: two authors typing at once, their edits of one line merged, and the tracker
 * actions against the fake Taiga. Skipped with a message without a browser; failing in CI, where
 * .ci/run installs it. Screenshots go to docs/screenshots (e2e-world.ts). Unsent edits:
 * editor-persistence.test.ts; history, rollback and delete: editor-history.test.ts; the keyboard:
 * editor-keyboard.test.ts.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, editorText, eventually, expectConverged, sideBySide, startService } from "./e2e-support.js";
import { TRACKER_WEB, cursorAt, requireBrowser, served, useEditorWorld } from "./e2e-world.js";

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
    expect(await expectConverged(w.service.url, id, [ada.tab, grace.tab])).toEqual("Release 2.0\n  [x] Write notes\n  [ ] Test upgrade\n  [ ] Announce");

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

  it("shows no tracker panel and no badges when the service has no tracker", async () => {
    const bare = await startService(w.page.root);
    try {
      const created = await createDocument(bare.url, "No tracker", `Sprint &tracker.alice-folio\n  [ ] Login page #US-${w.tracker!.story.ref}`);
      const context = await w.context({ viewport: { width: 1100, height: 720 } });
      // A tracker session left in the tab: the page must still ask no tracker anything.
      await context.addInitScript(`if (location.protocol === "http:") sessionStorage.setItem("folio.trackerSession", ${JSON.stringify(JSON.stringify({ authToken: w.tracker!.token, username: "alice", userId: w.tracker!.alice.id }))})`);
      const tab = await context.newPage();
      const asked: string[] = [];
      tab.on("request", (request) => asked.push(new URL(request.url()).pathname));
      await tab.goto(`${bare.url}/d/${created}`);
      await tab.locator('.cm-content[contenteditable="true"]').waitFor();
      await cursorAt(tab, 1, "End");
      await tab.keyboard.type(" soon");
      expect(await expectConverged(bare.url, created, [tab])).toEqual(`Sprint &tracker.alice-folio\n  [ ] Login page #US-${w.tracker!.story.ref} soon`);
      // No Tracker button and no panel open: the editor has the whole width.
      expect(await tab.locator(".side").isVisible()).toEqual(false);
      expect([await tab.locator(".tracker").count(), await tab.getByRole("button", { name: "Tracker" }).count(), await tab.locator(".cm-ticket-badge").count()]).toEqual([0, 0, 0]);
      expect(asked.filter((path) => path.includes("/tracker"))).toEqual([]);
      expect(asked).toContain("/api/v1/info");
    } finally {
      await bare.app.close();
    }
  });

  it("logs in to the tracker, shows badges, creates a story from a line, shows its status and moves it", async () => {
    // Two lines already link tickets: the seeded story (in progress, Bob's) and its task, closed and
    // Alice's, whose line still has an open box.
    const closedTask = w.tracker!.project.statuses.tasks.find((status) => status.isClosed)!;
    w.fake!.editTicket(w.tracker!.task, { status: closedTask.id, assignedTo: w.tracker!.alice.id });
    const storyLink = `#US-${w.tracker!.story.ref}`;
    const taskLink = `#T-${w.tracker!.task.ref}`;
    const id = await createDocument(
      w.service.url,
      "Tracker",
      `Sprint &tracker.alice-folio\n  [ ] Sign-up form\n    Validate the e-mail\n  Login page ${storyLink}\n    [ ] Write the form ${taskLink}`,
    );
    const ada = await author(id, "Ada");
    const tab = ada.tab;
    const badge = (line: number) => tab.locator(".cm-line").nth(line).locator(".cm-ticket-badge");
    const badges = () => tab.locator(".cm-ticket-badge").evaluateAll((found) => found.length);
    const lookups = (ref: number) => w.fake!.requests.filter((request) => request.path.endsWith("/by_ref") && request.query.ref === String(ref)).length;
    expect(await badges()).toEqual(0);
    const heightBefore = await tab.locator(".cm-line").nth(3).evaluate((line) => (line as unknown as { offsetHeight: number }).offsetHeight);

    await tab.getByLabel("Tracker user").fill(w.tracker!.alice.username);
    await tab.getByLabel("Password").fill("s3cret-Pa55word");
    await tab.getByRole("button", { name: "Log in to the tracker" }).click();
    await tab.getByText("Logged in as Alice Liddell").first().waitFor();
    // The token lives in sessionStorage only: not in localStorage, not in the address.
    const stored = await tab.evaluate<{ session: string | null; local: string; href: string }>(
      "({ session: sessionStorage.getItem('folio.trackerSession'), local: JSON.stringify(localStorage), href: location.href })",
    );
    const token = (JSON.parse(stored.session ?? "{}") as { authToken?: string }).authToken ?? "";
    expect(token.length).toBeGreaterThan(0);
    expect([stored.local.includes(token), stored.href.includes(token)]).toEqual([false, false]);

    // Logged in, both linked lines show their ticket's status and assignee at their end; the closed
    // task's badge says so, and its line's box is ticked through the live document (the service has it).
    await expect.poll(() => badge(3).textContent(), { timeout: 10_000 }).toEqual(`${w.tracker!.inProgress.name} · bob`);
    await expect.poll(() => badge(4).textContent(), { timeout: 10_000 }).toEqual(`${closedTask.name} · Alice Liddell`);
    expect([await badge(3).getAttribute("data-closed"), await badge(4).getAttribute("data-closed")]).toEqual(["false", "true"]);
    expect(await expectConverged(w.service.url, id, [tab])).toEqual(
      `Sprint &tracker.alice-folio\n  [ ] Sign-up form\n    Validate the e-mail\n  Login page ${storyLink}\n    [x] Write the form ${taskLink}`,
    );
    // Inline, in the line's own height: no line grew.
    expect(await tab.locator(".cm-line").nth(3).evaluate((line) => (line as unknown as { offsetHeight: number }).offsetHeight)).toEqual(heightBefore);
    // The ref stays the link token; the badge takes no focus (Tab from the editor goes on to the page).
    expect(await tab.locator(".cm-line").nth(3).locator(".cm-ticket-link").textContent()).toEqual(storyLink);
    expect(await badge(3).getAttribute("tabindex")).toEqual(null);
    // Typing on a linked line fetches nothing: the tickets are in the cache (the panel loads the
    // cursor's ticket once when the cursor arrives, and not again while the line's link stays).
    await cursorAt(tab, 3, "End");
    await expect.poll(() => tab.locator(".ticket-summary strong").textContent()).toEqual(`Story #${w.tracker!.story.ref}`);
    const before = [lookups(w.tracker!.story.ref), lookups(w.tracker!.task.ref)];
    expect(before.every((count) => count >= 1)).toEqual(true);
    await tab.keyboard.type(" (login)", { delay: 20 });
    await expectConverged(w.service.url, id, [tab]);

    await cursorAt(tab, 1, "End");
    await expect.poll(() => tab.locator(".tracker-body q").textContent()).toEqual("Sign-up form");
    await tab.getByRole("button", { name: "Create story" }).click();
    const linked = await eventually(() => editorText(tab), (text) => /#US-\d+$/.test(text.split("\n")[1] ?? ""));
    const ref = Number(/#US-(\d+)$/.exec(linked.split("\n")[1] ?? "")?.[1]);
    expect(linked).toEqual(`Sprint &tracker.alice-folio\n  [ ] Sign-up form #US-${ref}\n    Validate the e-mail\n  Login page ${storyLink} (login)\n    [x] Write the form ${taskLink}`);
    const created = w.fake!.tickets.find((ticket) => ticket.ref === ref);
    expect(created?.subject).toEqual("Sign-up form");
    // Once the text settles the new link gets its badge; the cached ones were not asked again.
    await expect.poll(() => badge(1).textContent(), { timeout: 10_000 }).toEqual("New");
    expect([lookups(w.tracker!.story.ref), lookups(w.tracker!.task.ref)]).toEqual(before);

    // A task on the line below belongs to the story node above it.
    await cursorAt(tab, 2, "End");
    await expect.poll(() => tab.locator(".tracker-body q").textContent()).toEqual("Validate the e-mail");
    await tab.getByRole("button", { name: "Create task" }).click();
    const withTask = await eventually(() => editorText(tab), (text) => /#T-\d+$/.test(text.split("\n")[2] ?? ""));
    const taskRef = Number(/#T-(\d+)$/.exec(withTask.split("\n")[2] ?? "")?.[1]);
    const task = w.fake!.tickets.find((ticket) => ticket.ref === taskRef);
    expect({ kind: task?.kind, subject: task?.subject, userStory: task?.userStory }).toEqual({ kind: "tasks", subject: "Validate the e-mail", userStory: created?.id });

    await cursorAt(tab, 1, "End");
    await expect.poll(() => tab.locator(".ticket-summary strong").textContent()).toEqual(`Story #${ref}`);
    expect(await tab.locator(".ticket-status").textContent()).toEqual("New");
    expect(await tab.getByRole("link", { name: "Open in the tracker" }).getAttribute("href")).toEqual(`${TRACKER_WEB}/project/alice-folio/us/${ref}`);
    // Someone moves the story in the tracker meanwhile: the page's write is refused by the tracker's
    // optimistic lock, the page says so, and a reload shows the ticket as it is now.
    w.fake!.editTicket(created!, { status: w.tracker!.inProgress.id });
    await tab.getByLabel("Move to column").selectOption({ label: w.tracker!.done.name });
    await tab.getByRole("button", { name: "Move" }).click();
    await tab.getByText("Changed meanwhile in the tracker — reload.").waitFor({ timeout: 10_000 });
    await tab.getByRole("button", { name: "Reload" }).click();
    await expect.poll(() => tab.locator(".ticket-status").textContent(), { timeout: 10_000 }).toEqual(w.tracker!.inProgress.name);

    // By keyboard: the column list takes arrow keys (End: the last column), Tab reaches "Move".
    await tab.getByLabel("Move to column").focus();
    await tab.keyboard.press("End");
    expect(await tab.getByLabel("Move to column").evaluate((select) => (select as unknown as { selectedOptions: { label: string }[] }).selectedOptions[0]?.label)).toEqual(w.tracker!.done.name);
    await tab.screenshot({ path: join(w.shots, "tracker-menu.png") });
    await tab.keyboard.press("Tab");
    await tab.keyboard.press("Enter");
    await expect.poll(() => tab.locator(".ticket-status").textContent(), { timeout: 10_000 }).toEqual(w.tracker!.done.name);
    // The moved story's badge follows at once, and its status box follows statusClosed, through the live document.
    await expect.poll(() => badge(1).textContent()).toEqual(w.tracker!.done.name);
    expect(await badge(1).getAttribute("data-closed")).toEqual("true");
    expect(await expectConverged(w.service.url, id, [tab])).toEqual(
      `Sprint &tracker.alice-folio\n  [x] Sign-up form #US-${ref}\n    Validate the e-mail #T-${taskRef}\n  Login page ${storyLink} (login)\n    [x] Write the form ${taskLink}`,
    );
    // At 360 px the badges stay within their lines and the page does not scroll sideways.
    await tab.setViewportSize({ width: 360, height: 640 });
    await tab.locator(".editor-host").scrollIntoViewIfNeeded();
    expect(await tab.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await tab.screenshot({ path: join(w.shots, "tracker-badges-360.png") });
  });
});
