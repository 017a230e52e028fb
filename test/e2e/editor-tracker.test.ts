/**
 * The editor page's tracker actions in a real browser (Debian's chromium through playwright-core)
 * against the real service on 127.0.0.1 and the fake Taiga: logging in, the inline badges, a story
 * and a task created from lines, a ticket moved; and a service without a tracker, whose page shows
 * none of it. Skipped with a message without a browser; failing in CI, where .ci/run installs it.
 * Screenshots go to docs/screenshots (e2e-world.ts). Two authors typing at once: editor.test.ts.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient, createEncryptedDocument, generateDocumentKey } from "../../src/client/index.js";
import { browserFound, createDocument, editorText, eventually, expectConverged, startService } from "./e2e-support.js";
import { TRACKER_WEB, cursorAt, requireBrowser, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-tracker.test.ts");

describe.skipIf(!browserFound)("the editor page in Chromium", { timeout: 45_000 }, () => {
  const w = useEditorWorld({ tracker: true });
  const author = (id: string, name: string, viewport?: { width: number; height: number }) => w.author(id, name, viewport);

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

  it("on an encrypted document, sends nothing of the text to the tracker until the person agrees, then says that a ticket gets the line's words in plain text", async () => {
    const key = generateDocumentKey();
    const { id } = await createEncryptedDocument(createClient({ baseUrl: w.service.url }), { title: "Secret sprint", content: "Sprint &tracker.alice-folio\n  [ ] Sign-up form" }, key);
    const context = await w.context({ viewport: { width: 1100, height: 720 } });
    await context.addInitScript(`if (location.protocol === "http:") sessionStorage.setItem("folio.trackerSession", ${JSON.stringify(JSON.stringify({ authToken: w.tracker!.token, username: "alice", userId: w.tracker!.alice.id }))})`);
    const tab = await context.newPage();
    const before = w.fake!.requests.length;
    await tab.goto(`${w.service.url}/d/${id}#key=${key}`);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor({ timeout: 10_000 });
    await cursorAt(tab, 1, "End");
    await expect.poll(() => tab.locator(".tracker .warning").textContent()).toEqual(
      "This document is encrypted, but the tracker is not: to show and create tickets, the panel sends the project name (&tracker.<slug>), the ticket numbers of its lines and a new ticket's words to this service and to the tracker in plain text.",
    );
    // The badges would have asked for the linked tickets by now (the editor is up, the cursor settled).
    await tab.waitForTimeout(500);
    expect(w.fake!.requests.length).toBe(before);
    await tab.getByRole("button", { name: "Use the tracker on this page anyway" }).click();
    await expect.poll(() => tab.locator(".tracker-body q").textContent()).toEqual("Sign-up form");
    expect(await tab.locator(".tracker .warning").textContent()).toEqual("This document is encrypted, but the tracker is not: a ticket gets the line's words in plain text.");
    expect(await tab.getByRole("button", { name: "Create story" }).isEnabled()).toEqual(true);
    await tab.locator(".tracker").screenshot({ path: join(w.shots, "tracker-encrypted-warning.png") });
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
    // The login form is gone, and the keys go to the text again (not to the page's body).
    const editorFocused = () => tab.evaluate<boolean>("document.activeElement?.classList.contains('cm-content') === true");
    await expect.poll(editorFocused).toBe(true);
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
    // A plain document: no warning that the line leaves it.
    expect(await tab.locator(".tracker .warning").count()).toEqual(0);
    await tab.getByRole("button", { name: "Create story" }).click();
    const linked = await eventually(() => editorText(tab), (text) => /#US-\d+$/.test(text.split("\n")[1] ?? ""));
    const ref = Number(/#US-(\d+)$/.exec(linked.split("\n")[1] ?? "")?.[1]);
    await expect.poll(editorFocused).toBe(true);
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
