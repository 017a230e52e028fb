/**
 * Nothing typed is lost between the keyboard and the service: reloads right after typing, answers
 * lost on the way back, offline spells and closed tabs, in Chromium against the real service. The
 * page keeps unsent edits in localStorage (web/pending-store.ts) and a reopened page resends them
 * with the same clientId and seq. Throughout, a watcher in each page checks that the status never
 * says "Saved" while an edit is kept unsent, nor "kept on this device" while none is.
 */
import { join } from "node:path";
import type { Page, Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, editorText, eventually, expectConverged } from "./e2e-support.js";
import { cursorAt, requireBrowser, served, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-persistence.test.ts");

const CONTENT_ROUTE = "**/api/v1/documents/*/content";

/**
 * Records, at every change of the status line, whether its words were true of localStorage then:
 * "kept on this device" only while a record is there. ("Saved" may show beside a record: it holds
 * only what the service confirmed until the page has been idle for a moment, docs/editing-protocol.md.)
 */
const STATUS_WATCH = `
  window.__statusLies = [];
  new MutationObserver(() => {
    const sync = document.querySelector(".sync");
    if (!sync) return;
    const kept = Object.keys(localStorage).some((key) => key.startsWith("folio.pending."));
    const text = sync.textContent;
    if (text.includes("kept on this device") && !kept) window.__statusLies.push(text + " (none kept)");
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

async function statusLies(tab: Page): Promise<string[]> {
  return tab.evaluate<string[]>("window.__statusLies");
}

interface SentPatch {
  clientId: string;
  seq: number;
  ops: unknown;
}

/** The content patches `tab` sends, as sent. */
function recordPatches(tab: Page): SentPatch[] {
  const sent: SentPatch[] = [];
  tab.on("request", (request: Request) => {
    if (request.method() === "PATCH" && request.url().endsWith("/content")) sent.push(request.postDataJSON() as SentPatch);
  });
  return sent;
}

describe.skipIf(!browserFound)("unsent edits in the editor page", { timeout: 60_000 }, () => {
  const w = useEditorWorld();

  async function openIn(context: Awaited<ReturnType<typeof w.context>>, id: string): Promise<Page> {
    const tab = await context.newPage();
    await w.open(tab, id);
    return tab;
  }

  it("loses nothing when the page is reloaded right after typing, three times: acknowledged, answer lost, not sent", async () => {
    const id = await createDocument(w.service.url, "Notes", "start");
    const context = await w.context({ viewport: { width: 1000, height: 600 } });
    await context.addInitScript(STATUS_WATCH);
    const tab = await openIn(context, id);
    const typed = ["typed then reloaded", "its answer lost", "never sent"];
    for (const [round, line] of typed.entries()) {
      if (round === 1) await tab.route(CONTENT_ROUTE, async (route) => (await route.fetch(), route.abort()));
      if (round === 2) await tab.route(CONTENT_ROUTE, (route) => route.abort());
      await cursorAt(tab, round, "End");
      await tab.keyboard.press("Enter");
      await tab.keyboard.type(line);
      if (round > 0) await expect.poll(() => tab.locator(".sync").textContent(), { timeout: 10_000 }).toEqual("Offline — edits kept on this device");
      expect(await statusLies(tab)).toEqual([]);
      await tab.unrouteAll({ behavior: "wait" });
      await tab.reload();
      await tab.locator('.cm-content[contenteditable="true"]').waitFor({ timeout: 10_000 });
      // Reloaded, the page shows the kept text at once, whether the service has it yet or not.
      expect(await editorText(tab)).toEqual(["start", ...typed.slice(0, round + 1)].join("\n"));
    }
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("start\ntyped then reloaded\nits answer lost\nnever sent");
    expect(await statusLies(tab)).toEqual([]);
    // Idle with all saved, the page removes its record.
    await expect.poll(() => tab.evaluate<string[]>("Object.keys(localStorage).filter((key) => key.startsWith('folio.pending.'))"), { timeout: 10_000 }).toEqual([]);
  });

  it("sends a line typed offline exactly once after the tab was closed and reopened online, with the same clientId and seq", async () => {
    const id = await createDocument(w.service.url, "Launch", "Launch\n  [ ] Write notes");
    const context = await w.context({ viewport: { width: 1000, height: 600 } });
    await context.addInitScript(STATUS_WATCH);
    const first = await openIn(context, id);
    const firstSent = recordPatches(first);
    await expect.poll(() => first.locator(".sync").textContent()).toEqual("Saved");

    // The first patch reaches the service, but its answer is lost; then the network is gone. A
    // retry the page sends later may still be routed here (Chromium routes before it fails a request
    // as offline): it is refused and never sent on, and it never sets the network again, which would
    // cut off the second tab.
    let cut = false;
    await first.route(CONTENT_ROUTE, async (route) => {
      if (cut) return route.abort();
      cut = true;
      await route.fetch();
      await context.setOffline(true);
      await route.abort();
    });
    await cursorAt(first, 1, "End");
    // Enter after a check-box line starts the next box.
    await first.keyboard.press("Enter");
    await first.keyboard.type("Announce on Monday");
    await expect.poll(() => first.locator(".sync").textContent(), { timeout: 10_000 }).toEqual("Offline — edits kept on this device");
    await first.screenshot({ path: join(w.shots, "offline-kept.png") });
    // Closed as a person closes a tab (its pagehide runs); reopened a moment later in a new one.
    await first.unrouteAll({ behavior: "wait" });
    await Promise.all([first.waitForEvent("close"), first.close({ runBeforeUnload: true })]);
    expect((await served(w.service.url, id)).content).not.toEqual("Launch\n  [ ] Write notes\n  [ ] Announce on Monday");

    await context.setOffline(false);
    const second = await context.newPage();
    const secondSent = recordPatches(second);
    await w.open(second, id);
    const text = await expectConverged(w.service.url, id, [second]);
    expect(text).toEqual("Launch\n  [ ] Write notes\n  [ ] Announce on Monday");

    // The reopened page resent the patch the service had applied, unchanged; the service answered
    // from its receipt, so every seq is one version and nothing is doubled.
    expect(secondSent[0]).toEqual(firstSent.at(-1));
    const seqs = new Set([...firstSent, ...secondSent].map((patch) => `${patch.clientId}/${patch.seq}`));
    expect(new Set([...firstSent, ...secondSent].map((patch) => patch.clientId)).size).toEqual(1);
    const document = (await (await fetch(`${w.service.url}/api/v1/documents/${id}`)).json()) as { version: number };
    expect(document.version).toEqual(1 + seqs.size);
    expect(await statusLies(second)).toEqual([]);
  });

  it("says so when the browser keeps nothing: offline, the edits live in the page only", async () => {
    const id = await createDocument(w.service.url, "Quota", "a");
    const context = await w.context({ viewport: { width: 1000, height: 600 } });
    // A full storage: every write of an unsent edit is refused.
    await context.addInitScript(`
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function (key, value) {
        if (/^folio\\.(pending|log)\\./.test(String(key))) throw new DOMException("full", "QuotaExceededError");
        return setItem.call(this, key, value);
      };
    `);
    const tab = await openIn(context, id);
    await context.setOffline(true);
    await cursorAt(tab, 0, "End");
    await tab.keyboard.type("b");
    await expect.poll(() => tab.locator(".sync").textContent()).toEqual("Offline — keep this page open");
    await context.setOffline(false);
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("ab");
    expect(await eventually(() => tab.locator(".sync").getAttribute("data-keeping"), (keeping) => keeping === "none")).toEqual("none");
  });

  it("keeps each page's edits apart: another page of the same document saving never drops them, and a closed page's edits go to the next page", async () => {
    const id = await createDocument(w.service.url, "Two tabs", "top\nbottom");
    const context = await w.context({ viewport: { width: 900, height: 500 } });
    const ann = await openIn(context, id);
    const bob = await openIn(context, id);
    // Ann's page is cut off; Bob's, in the same browser, goes on saving.
    await ann.route(CONTENT_ROUTE, (route) => route.abort());
    await cursorAt(ann, 1, "End");
    await ann.keyboard.type(" from Ann");
    await expect.poll(() => ann.locator(".sync").textContent(), { timeout: 10_000 }).toEqual("Offline — edits kept on this device");
    await cursorAt(bob, 0, "Home");
    await bob.keyboard.type("Bob: ");
    await expect.poll(() => bob.locator(".sync").textContent(), { timeout: 10_000 }).toEqual("Saved");
    await Promise.all([ann.waitForEvent("close"), ann.close({ runBeforeUnload: true })]);

    // A new tab takes over Ann's kept edit (her page is gone), carries it over Bob's, and sends it.
    const third = await openIn(context, id);
    expect(await expectConverged(w.service.url, id, [bob, third])).toEqual("Bob: top\nbottom from Ann");
  });

  it("adopts one closed page's edits per open and says that more are kept; a reload sends the next", async () => {
    const id = await createDocument(w.service.url, "Closed tabs", "a\nb");
    const context = await w.context({ viewport: { width: 900, height: 500 } });
    // Two pages open at once, each with an edit kept, then both closed.
    const pages = [await openIn(context, id), await openIn(context, id)];
    for (const [line, typed] of [[0, " one"], [1, " two"]] as const) {
      const page = pages[line]!;
      await page.route(CONTENT_ROUTE, (route) => route.abort());
      await cursorAt(page, line, "End");
      await page.keyboard.type(typed);
      await expect.poll(() => page.locator(".sync").textContent(), { timeout: 10_000 }).toEqual("Offline — edits kept on this device");
    }
    for (const page of pages) await Promise.all([page.waitForEvent("close"), page.close({ runBeforeUnload: true })]);
    const tab = await openIn(context, id);
    await expect.poll(() => tab.locator(".page-message").textContent()).toEqual(
      "Unsent edits from another closed page of this document are kept in this browser: reload to send them.",
    );
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("a\nb two");
    await tab.reload();
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    expect(await expectConverged(w.service.url, id, [tab])).toEqual("a one\nb two");
    expect(await tab.locator(".page-message").textContent()).toEqual("");
  });

  it("tells living pages from gone ones by a heartbeat where the browser has no Web Locks", async () => {
    const id = await createDocument(w.service.url, "No locks", "x");
    const context = await w.context({ viewport: { width: 900, height: 500 } });
    // As on a page served over plain HTTP to another host: no navigator.locks.
    await context.addInitScript("delete Navigator.prototype.locks");
    const first = await openIn(context, id);
    expect(await first.evaluate<boolean>("'locks' in navigator")).toEqual(false);
    await first.route(CONTENT_ROUTE, (route) => route.abort());
    await cursorAt(first, 0, "End");
    await first.keyboard.type("yz");
    await expect.poll(() => first.locator(".sync").textContent(), { timeout: 10_000 }).toEqual("Offline — edits kept on this device");
    // While the page lives, a second page leaves its edit alone.
    const second = await openIn(context, id);
    expect(await editorText(second)).toEqual("x");
    await second.close();
    await Promise.all([first.waitForEvent("close"), first.close({ runBeforeUnload: true })]);
    const third = await openIn(context, id);
    expect(await expectConverged(w.service.url, id, [third])).toEqual("xyz");
  });
});

