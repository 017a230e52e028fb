/**
 * Encrypted documents in Chromium against the real service (docs/encryption.md): a new encrypted
 * document from the start page, typed into, stored as ciphertext; a second page opens its link (the
 * key in the fragment) and both edit; its read-only page with the key; the same pages without the
 * key (or with another) say that the link's key is needed and show no ciphertext. No request any
 * page sends carries the key.
 */
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createClient, createEncryptedDocument, generateDocumentKey, withDocumentKey } from "../../src/client/index.js";
import { browserFound, editorText, eventually } from "./e2e-support.js";
import { cursorAt, requireBrowser, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/encrypted.test.ts");

const status = (tab: Page) => tab.locator(".sync").getAttribute("data-status");
/** Words the service must never hold: each long enough not to turn up by chance in base64url. */
const SECRET_WORDS = ["Quarterly", "Budget review", "Hire designer", "Negotiate", "Vendors"];

describe.skipIf(!browserFound)("encrypted documents in Chromium", { timeout: 90_000 }, () => {
  const w = useEditorWorld();
  const requests: string[] = [];

  /** A page of its own browser context that records every request it sends (URL and body). */
  async function tabAt(link: string, viewport = { width: 1100, height: 620 }): Promise<{ tab: Page; context: BrowserContext }> {
    const context = await w.context({ viewport });
    await context.addInitScript(`if (location.protocol === "http:") localStorage.setItem("folio.displayName", "Ada")`);
    const tab = await context.newPage();
    tab.on("request", (request) => requests.push(`${request.method()} ${request.url()} ${request.postData() ?? ""}`));
    await tab.goto(link);
    return { tab, context };
  }

  /** What the service serves for the document, as plain HTTP reads it: head and history, titles and texts. */
  async function servedText(id: string): Promise<string> {
    const answers = await Promise.all([`/api/v1/documents/${id}`, `/api/v1/documents/${id}/history`].map((path) => fetch(`${w.service.url}${path}`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    return (await Promise.all(answers.map((answer) => answer.text()))).join("\n");
  }

  it("creates one from the start page, stores ciphertext, opens it by its link in a second page and read-only, and asks for the key without it", async () => {
    // The start page: a new encrypted document; the page goes to its link, the key in the fragment.
    const ada = await tabAt(`${w.service.url}/`);
    await ada.tab.locator("#new-title").fill("Quarterly plan");
    await ada.tab.getByRole("button", { name: "New encrypted document", exact: true }).click();
    await ada.tab.waitForURL(/\/d\/[0-9a-f-]{36}#key=[A-Za-z0-9_-]{43}$/);
    const link = ada.tab.url();
    const [, id, key] = /\/d\/([0-9a-f-]{36})#key=([A-Za-z0-9_-]{43})$/.exec(link)!;
    await ada.tab.locator('.cm-content[contenteditable="true"]').waitFor();
    expect(await ada.tab.locator(".encrypted-mark").textContent()).toEqual("Encrypted");
    expect(await ada.tab.locator("#doc-title").inputValue()).toEqual("Quarterly plan");

    // Typed into; the service holds one ciphertext line per line and none of the words.
    await ada.tab.locator(".cm-content").click();
    await ada.tab.keyboard.type("Budget review");
    await ada.tab.keyboard.press("Enter");
    await ada.tab.keyboard.type("Hire designer");
    await expect.poll(() => status(ada.tab), { timeout: 10_000 }).toEqual("synced");
    const typed = await editorText(ada.tab);
    expect(typed.split("\n")).toHaveLength(2);
    const stored = (await (await fetch(`${w.service.url}/api/v1/documents/${id}`)).json()) as { title: string; content: string };
    expect(stored.title).toMatch(/^e1\.[A-Za-z0-9_.-]{251}$/);
    expect(stored.content.split("\n")).toHaveLength(2);
    expect(SECRET_WORDS.filter((word) => stored.title.includes(word) || stored.content.includes(word))).toEqual([]);

    // A second page opens the link: the plain text; both type, and both see both.
    const bob = await tabAt(link);
    await bob.tab.locator('.cm-content[contenteditable="true"]').waitFor();
    await expect.poll(() => editorText(bob.tab)).toEqual(typed);
    await cursorAt(bob.tab, 0, "End");
    await bob.tab.keyboard.type(" Vendors");
    await cursorAt(ada.tab, 1, "End");
    await ada.tab.keyboard.type(" Negotiate");
    const plain = withDocumentKey(createClient({ baseUrl: w.service.url }), key!);
    const converged = await eventually(
      async () => ({ texts: await Promise.all([editorText(ada.tab), editorText(bob.tab)]), head: (await plain.getDocument(id!)).content, saved: await Promise.all([status(ada.tab), status(bob.tab)]) }),
      (s) => s.texts.every((text) => text === s.head) && s.saved.every((saved) => saved === "synced"),
      15_000,
    );
    expect(converged.texts).toEqual([converged.head, converged.head]);
    expect(converged.head).toContain("Vendors");
    expect(converged.head).toContain("Negotiate");
    expect(SECRET_WORDS.filter((word) => word !== "Quarterly" && !converged.head.includes(word))).toEqual([]);
    const served = await servedText(id!);
    expect(SECRET_WORDS.filter((word) => served.includes(word))).toEqual([]);
    await ada.tab.screenshot({ path: join(w.shots, "encrypted-editor.png") });

    // The Share panel: both links carry the key; the read-only page with it shows the plain text.
    await ada.tab.getByRole("button", { name: "Share", exact: true }).click();
    expect(await ada.tab.locator(".share-link-edit").inputValue()).toEqual(link);
    expect(await ada.tab.locator(".share-key").textContent()).toContain("not its key: to take the key away too, use Change key");
    await ada.tab.getByRole("button", { name: "Make a read-only link" }).click();
    await ada.tab.getByText("Made a read-only link.").waitFor();
    const readLink = await ada.tab.locator(".share-link-read").inputValue();
    expect(readLink).toMatch(new RegExp(`/r/[0-9a-f-]{36}#key=${key}$`));
    const reader = await tabAt(readLink, { width: 1000, height: 480 });
    await reader.tab.locator(".read-only-mark").waitFor();
    expect(await reader.tab.locator(".read-title").textContent()).toEqual("Quarterly plan");
    await expect.poll(() => editorText(reader.tab)).toEqual(converged.head);

    // Without the key, or with another: the pages say what is needed and show no ciphertext. A link
    // with a key to a plain document (made plain by whoever can change it, say) does not open it.
    const head = (await (await fetch(`${w.service.url}/api/v1/documents/${id}`)).json()) as { title: string; content: string };
    const ciphers = [head.title.slice(26, 60), ...head.content.split("\n").map((line) => line.slice(0, 30))];
    const wire = createClient({ baseUrl: w.service.url });
    const plainDoc = await wire.createDocument({ title: "Plain notes", content: "Plain words" });
    const { readId: plainReadId } = await wire.read.createLink(plainDoc.id);
    const said = { missing: "the link's key is needed", wrong: "does not open this document", "not-encrypted": "the document is not encrypted" };
    for (const [at, problem, plainPath] of [
      [`${w.service.url}/d/${id}`, "missing"],
      [readLink.replace(/#key=.*$/, ""), "missing"],
      [`${w.service.url}/d/${id}#key=${"A".repeat(43)}`, "wrong"],
      [`${w.service.url}/d/${plainDoc.id}#key=${key}`, "not-encrypted", `/d/${plainDoc.id}`],
      [`${w.service.url}/r/${plainReadId}#key=${key}`, "not-encrypted", `/r/${plainReadId}`],
    ] as const) {
      const other = await tabAt(at, { width: 900, height: 420 });
      await other.tab.locator(`.key-needed[data-key-problem="${problem}"]`).waitFor();
      const shown = await other.tab.evaluate<string>("document.body.innerText");
      expect(shown).toContain(said[problem]);
      expect(ciphers.filter((cipher) => shown.includes(cipher))).toEqual([]);
      expect(shown).not.toContain("Plain words");
      expect(await other.tab.locator(".cm-content").count()).toEqual(0);
      const openPlain = other.tab.locator("a.open-plain");
      expect((await openPlain.count()) > 0 ? await openPlain.getAttribute("href") : null).toEqual(plainPath ?? null);
      if (at === `${w.service.url}/d/${id}`) await other.tab.screenshot({ path: join(w.shots, "encrypted-no-key.png") });
      if (at.startsWith(`${w.service.url}/d/${plainDoc.id}`)) await other.tab.screenshot({ path: join(w.shots, "encrypted-key-plain.png") });
    }

    // Nothing this browser keeps holds the key, the title or a word: unsent edits (typed offline) are sealed.
    await ada.context.setOffline(true);
    await cursorAt(ada.tab, 0, "End");
    await ada.tab.keyboard.type(" Zebra crossing");
    const kept = () => ada.tab.evaluate<string>("JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])");
    const storage = await eventually(kept, (text) => text.includes("folio.pending."), 10_000);
    expect([...SECRET_WORDS, "Zebra", key!].filter((word) => storage.includes(word))).toEqual([]);
    await ada.context.setOffline(false);
    await expect.poll(() => status(ada.tab), { timeout: 15_000 }).toEqual("synced");
    expect((await plain.getDocument(id!)).content).toContain("Zebra crossing");

    // The key never left a page: no request (URL or body) of any page carries it.
    expect(requests.length).toBeGreaterThan(10);
    expect(requests.filter((request) => request.includes(key!))).toEqual([]);
  });

  it("renames, shows its history and rolls back in plain text, and changes its key: the old links stop opening it", async () => {
    const client = createClient({ baseUrl: w.service.url });
    const key = generateDocumentKey();
    const { id } = await createEncryptedDocument(client, { title: "Vendors list", content: "Negotiate terms\nBudget review" }, key);
    const { readId: oldReadId } = await client.read.createLink(id);
    const ada = await tabAt(`${w.service.url}/d/${id}#key=${key}`);
    await ada.tab.locator('.cm-content[contenteditable="true"]').waitFor();
    await ada.tab.locator("#doc-title").fill("Quarterly vendors");
    await ada.tab.getByRole("button", { name: "Rename" }).click();
    await ada.tab.getByText("Renamed.").waitFor();
    await cursorAt(ada.tab, 1, "End");
    await ada.tab.keyboard.type(" done");
    await expect.poll(() => status(ada.tab), { timeout: 10_000 }).toEqual("synced");

    // The history panel shows plain text; rolling back to the first version brings its text back.
    await ada.tab.getByRole("button", { name: "History", exact: true }).click();
    await ada.tab.getByRole("button", { name: "View version 1" }).click();
    await expect.poll(() => ada.tab.locator(".history-preview .version-text").textContent()).toEqual("Negotiate terms\nBudget review");
    await ada.tab.getByRole("button", { name: "Roll back to version 1" }).click();
    await expect.poll(() => editorText(ada.tab), { timeout: 10_000 }).toEqual("Negotiate terms\nBudget review");
    await expect.poll(() => ada.tab.locator("#doc-title").inputValue()).toEqual("Vendors list");
    await expect.poll(() => status(ada.tab), { timeout: 10_000 }).toEqual("synced");
    const served = await servedText(id);
    expect(SECRET_WORDS.filter((word) => served.includes(word))).toEqual([]);

    // Change key: a new key in the page's address, the same text; the old links open nothing. While
    // the document is written again (its PUT held here), the text cannot be changed. The PUT is made,
    // but its answer never reaches the page: the page finds that the new key opens the document, and
    // keeps it rather than losing it.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let writing = false;
    const documentUrl = `${w.service.url}/api/v1/documents/${id}`;
    await ada.tab.route(documentUrl, async (route) => {
      if (route.request().method() !== "PUT") return route.continue();
      writing = true;
      await held;
      expect((await route.fetch()).status()).toEqual(200);
      await route.abort("connectionreset");
    });
    await ada.tab.getByRole("button", { name: "Change key" }).click();
    // It asks first: every other link stops working. Cancel is the default.
    const asked = ada.tab.getByRole("dialog", { name: "Change the key?" });
    expect(await ada.tab.evaluate<string | undefined>("document.activeElement?.textContent")).toEqual("Cancel");
    await asked.getByRole("button", { name: "Change key" }).click();
    await expect.poll(() => writing, { timeout: 10_000 }).toBe(true);
    expect(await ada.tab.locator(".cm-content").getAttribute("contenteditable")).toEqual("false");
    release();
    await ada.tab.waitForURL((url) => url.hash.startsWith("#key=") && url.hash !== `#key=${key}`);
    await ada.tab.unroute(documentUrl);
    await ada.tab.locator('.cm-content[contenteditable="true"]').waitFor();
    await expect.poll(() => editorText(ada.tab)).toEqual("Negotiate terms\nBudget review");
    const newKey = new URL(ada.tab.url()).hash.slice("#key=".length);
    expect((await withDocumentKey(client, newKey).getDocument(id)).title).toEqual("Vendors list");
    const old = await tabAt(`${w.service.url}/d/${id}#key=${key}`, { width: 900, height: 420 });
    await old.tab.locator('.key-needed[data-key-problem="wrong"]').waitFor();
    expect((await fetch(`${w.service.url}/api/v1/read/${oldReadId}`)).status).toEqual(404);
    expect(requests.filter((request) => request.includes(key) || request.includes(newKey))).toEqual([]);
  });
  it("stops a second page when the key is changed on another: it sends nothing it holds, says why, and opens the new link pasted in", async () => {
    const client = createClient({ baseUrl: w.service.url });
    const key = generateDocumentKey();
    const { id } = await createEncryptedDocument(client, { title: "Shared plan", content: "Budget review\nHire designer" }, key);
    const link = `${w.service.url}/d/${id}#key=${key}`;
    const ada = await tabAt(link);
    const bob = await tabAt(link, { width: 900, height: 560 });
    const carl = await tabAt(link, { width: 900, height: 480 });
    for (const { tab } of [ada, bob, carl]) await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    // Bob types offline: his edit is held in his page. Carl's page only follows.
    await bob.context.setOffline(true);
    await cursorAt(bob.tab, 1, "End");
    await bob.tab.keyboard.type(" Negotiate");
    await expect.poll(() => status(bob.tab), { timeout: 10_000 }).toEqual("offline");
    const bobSent: string[] = [];
    bob.tab.on("request", (request) => {
      if (request.method() === "PATCH" || request.method() === "PUT") bobSent.push(`${request.method()} ${request.url()}`);
    });

    await ada.tab.getByRole("button", { name: "Change key" }).click();
    await ada.tab.getByRole("dialog", { name: "Change the key?" }).getByRole("button", { name: "Change key" }).click();
    await ada.tab.waitForURL((url) => url.hash.startsWith("#key=") && url.hash !== `#key=${key}`);
    await ada.tab.locator('.cm-content[contenteditable="true"]').waitFor();
    const newLink = ada.tab.url();
    const newKey = new URL(newLink).hash.slice("#key=".length);
    const rewritten = await servedText(id);

    // Carl's page follows the feed: within one answer it stops and says so.
    await carl.tab.locator('.key-needed[data-key-problem="changed"]').waitFor({ timeout: 10_000 });
    expect(await carl.tab.getByRole("heading", { level: 1 }).textContent()).toEqual("The document's key was changed");
    // Bob comes back online: his page stops too, and his edit never reaches the service.
    await bob.context.setOffline(false);
    await bob.tab.locator('.key-needed[data-key-problem="changed"]').waitFor({ timeout: 15_000 });
    await bob.tab.screenshot({ path: join(w.shots, "encrypted-key-changed.png") });
    expect(bobSent).toEqual([]);
    expect(await servedText(id)).toEqual(rewritten);
    expect((await withDocumentKey(client, newKey).getDocument(id)).content).toEqual("Budget review\nHire designer");
    // What Bob's page showed stays there to copy, his words included.
    expect(await bob.tab.locator(".last-text textarea").inputValue()).toEqual("Budget review\nHire designer Negotiate");

    // A wrong link is refused with a reason; the new one opens the document in Bob's page.
    await bob.tab.locator("#new-link").fill(`${w.service.url}/d/${id}`);
    await bob.tab.getByRole("button", { name: "Open" }).click();
    expect(await bob.tab.locator("#new-link-problem").textContent()).toEqual("That link has no key (#key=…): paste the whole new link.");
    await bob.tab.locator("#new-link").fill(newLink);
    await bob.tab.getByRole("button", { name: "Open" }).click();
    await bob.tab.locator('.cm-content[contenteditable="true"]').waitFor();
    await expect.poll(() => editorText(bob.tab)).toEqual("Budget review\nHire designer");
  });
});
