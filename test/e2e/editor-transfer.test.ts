/**
 * Export and import in Chromium against the real service (docs/notation.md#export-and-import): a
 * plain document downloaded in each format from the service (and through its read-only link), files
 * imported into the open document as one edit and as new documents, a hostile file refused with a
 * clear message, an encrypted document exported and imported in the browser only (no export request,
 * no plain text on the wire), and the start page keeping encrypted documents only by choice.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserFound, createDocument, editorText, eventually, expectConverged } from "./e2e-support.js";
import { cursorAt, requireBrowser, served, useEditorWorld } from "./e2e-world.js";

requireBrowser("test/e2e/editor-transfer.test.ts");

const TEXT = "Launch\n  [ ] Write notes\n  [x] Test upgrade\n    on staging";

/** Clicks a download button and returns the file's name and text. */
async function download(tab: Page, label: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([tab.waitForEvent("download"), tab.getByRole("button", { name: label, exact: true }).click()]);
  return { name: file.suggestedFilename(), text: readFileSync(await file.path(), "utf8") };
}

/** Puts a file into the import form's file field. */
async function chooseFile(tab: Page, name: string, text: string): Promise<void> {
  await tab.locator('.import-form input[type="file"]').first().setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(text, "utf8") });
}

/** The requests of a page, as "METHOD url body". */
function recordRequests(tab: Page): string[] {
  const seen: string[] = [];
  tab.on("request", (request) => seen.push(`${request.method()} ${request.url()} ${request.postData() ?? ""}`));
  return seen;
}

describe.skipIf(!browserFound)("export and import on the page", { timeout: 90_000 }, () => {
  const w = useEditorWorld();

  it("downloads a plain document in each format from the service, also through its read-only link", async () => {
    const id = await createDocument(w.service.url, "Launch plan", TEXT);
    const { tab } = await w.author(id, "Ada");
    const requests = recordRequests(tab);
    await tab.getByRole("button", { name: "Export and import", exact: true }).click();

    const files = [await download(tab, "Download as Markdown"), await download(tab, "Download as OPML"), await download(tab, "Download as Text")];

    const fromService = async (format: string) => (await fetch(`${w.service.url}/api/v1/documents/${id}/export?format=${format}`)).text();
    expect(files).toEqual([
      { name: "Launch plan.md", text: "- Launch\n  - [ ] Write notes\n  - [x] Test upgrade\n    - on staging\n" },
      { name: "Launch plan.opml", text: await fromService("opml") },
      { name: "Launch plan.txt", text: `${TEXT}\n` },
    ]);
    expect(requests.filter((request) => request.includes("/export?format=")).length).toEqual(3);
    await tab.screenshot({ path: join(w.shots, "export-import-panel.png") });

    const readId = ((await (await fetch(`${w.service.url}/api/v1/documents/${id}/read-link`, { method: "POST" })).json()) as { readId: string }).readId;
    await tab.goto(`${w.service.url}/r/${readId}`);
    await tab.getByRole("button", { name: "Export", exact: true }).click();
    expect(await download(tab, "Download as Markdown")).toEqual(files[0]);
  });

  it("imports a file into the open document as one edit, undone whole; another as a new document; a hostile one is refused", async () => {
    const id = await createDocument(w.service.url, "Plan", "Launch\n  Write notes\nRetro");
    const { tab } = await w.author(id, "Ada");
    await tab.getByRole("button", { name: "Export and import", exact: true }).click();

    await cursorAt(tab, 1, "End");
    await chooseFile(tab, "tasks.md", "* Test upgrade\n    * [X] on staging\n");
    await tab.getByRole("button", { name: "Insert after the cursor's node" }).click();
    // The file is read asynchronously: until its status shows, the page still stands converged on the old text.
    await expect.poll(() => tab.locator(".transfer .panel-status").last().textContent(), { timeout: 10_000 }).toEqual("Imported tasks.md.");
    expect(await expectConverged(w.service.url, id, [tab], "Launch\n  Write notes\n  Test upgrade\n    [X] on staging\nRetro")).toEqual("Launch\n  Write notes\n  Test upgrade\n    [X] on staging\nRetro");
    await tab.locator(".cm-content").focus();
    await tab.keyboard.press("Control+z");
    expect(await expectConverged(w.service.url, id, [tab], "Launch\n  Write notes\nRetro")).toEqual("Launch\n  Write notes\nRetro");
    await cursorAt(tab, 2, "End");
    await chooseFile(tab, "notes.txt", "Book room\r\n  [ ] Send invite\r\n");
    await tab.getByRole("button", { name: "Insert after the cursor's node" }).click();
    await expect.poll(() => tab.locator(".transfer .panel-status").last().textContent(), { timeout: 10_000 }).toEqual("Imported notes.txt.");
    expect(await expectConverged(w.service.url, id, [tab], "Launch\n  Write notes\nRetro\nBook room\n  [ ] Send invite")).toEqual("Launch\n  Write notes\nRetro\nBook room\n  [ ] Send invite");

    const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><opml version="2.0"><body><outline text="&lol2;"/></body></opml>';
    await chooseFile(tab, "laughs.opml", laughs);
    await tab.getByRole("button", { name: "As a new document", exact: true }).click();
    await expect
      .poll(() => tab.locator(".transfer .panel-status").last().textContent(), { timeout: 10_000 })
      .toEqual("Could not import laughs.opml: the file declares a document type (<!DOCTYPE>), which OPML never needs and which can declare entities: it is not read.");

    const opml = '<?xml version="1.0"?><opml version="2.0"><head><title>From Workflowy</title></head><body><outline text="Groceries"><outline text="Milk" _complete="true"/></outline></body></opml>';
    await chooseFile(tab, "export.opml", opml);
    await tab.getByRole("button", { name: "As a new document", exact: true }).click();
    await tab.waitForURL((url) => url.pathname !== `/d/${id}`);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    const created = /\/d\/([0-9a-f-]{36})$/.exec(tab.url())?.[1] ?? "";
    expect(await expectConverged(w.service.url, created, [tab])).toEqual("Groceries\n  [x] Milk");
    expect(await tab.locator("#doc-title").inputValue()).toEqual("From Workflowy");
  });

  it("exports and imports an encrypted document in the browser: no export request, no plain text on the wire", async () => {
    const context = await w.context({ viewport: { width: 1100, height: 720 }, acceptDownloads: true });
    const tab = await context.newPage();
    const requests = recordRequests(tab);
    await tab.goto(`${w.service.url}/`);
    await tab.getByLabel("Title", { exact: true }).fill("Secret plan");
    await tab.getByRole("button", { name: "New encrypted document", exact: true }).click();
    await tab.waitForURL(/\/d\/[0-9a-f-]{36}#key=/);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    const id = /\/d\/([0-9a-f-]{36})/.exec(tab.url())?.[1] ?? "";
    expect(await tab.locator(".key-warning").textContent()).toContain("it holds the only copy of the key");
    await tab.keyboard.type("Launch\n[ ] Write notes");
    await eventually(() => tab.locator(".sync").getAttribute("data-status"), (status) => status === "synced");

    await tab.getByRole("button", { name: "Export and import", exact: true }).click();
    expect([await download(tab, "Download as Markdown"), await download(tab, "Download as OPML"), await download(tab, "Download as Text")]).toEqual([
      { name: "Secret plan.md", text: "- Launch\n- [ ] Write notes\n" },
      {
        name: "Secret plan.opml",
        text: '<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0">\n  <head>\n    <title>Secret plan</title>\n  </head>\n  <body>\n    <outline text="Launch"/>\n    <outline text="Write notes" checkbox="true"/>\n  </body>\n</opml>\n',
      },
      { name: "Secret plan.txt", text: "Launch\n[ ] Write notes\n" },
    ]);
    await cursorAt(tab, 1, "End");
    await chooseFile(tab, "steps.md", "- Test upgrade\n  - [x] on staging\n");
    await tab.getByRole("button", { name: "Insert after the cursor's node" }).click();
    await chooseFile(tab, "extra.txt", "Retro");
    await tab.getByRole("button", { name: "Insert after the cursor's node" }).click();
    expect(await eventually(() => editorText(tab), (text) => text.endsWith("Retro"))).toEqual("Launch\n[ ] Write notes\nTest upgrade\n  [x] on staging\nRetro");
    expect(await eventually(() => tab.locator(".sync").getAttribute("data-status"), (status) => status === "synced")).toEqual("synced");
    await chooseFile(tab, "more.opml", '<opml version="2.0"><body><outline text="Phone Ben"><outline text="booked" _complete="true"/></outline></body></opml>');
    await tab.getByRole("button", { name: "As a new encrypted document" }).click();
    await tab.waitForURL((url) => !url.pathname.endsWith(id) && url.hash.startsWith("#key="));
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    expect(await editorText(tab)).toEqual("Phone Ben\n  [x] booked");
    const created = /\/d\/([0-9a-f-]{36})/.exec(tab.url())?.[1] ?? "";

    expect(requests.filter((request) => request.includes("/export"))).toEqual([]);
    expect(requests.filter((request) => /Launch|Write notes|Test upgrade|staging|Retro|Phone Ben|booked|Secret plan/.test(request))).toEqual([]);
    for (const stored of [await served(w.service.url, id), await served(w.service.url, created)]) expect(stored.content).not.toMatch(/Launch|Write|upgrade|staging|Retro|Phone|booked/);
  });

  it("keeps an encrypted document on the start page only when asked to remember it on this device", async () => {
    const context = await w.context({ viewport: { width: 900, height: 900 } });
    const tab = await context.newPage();
    await tab.goto(`${w.service.url}/`);
    expect(await tab.locator("#key-warning").isVisible()).toEqual(true);
    await tab.getByLabel("Remember encrypted documents on this device", { exact: false }).check();
    expect(await tab.locator("#key-warning").isVisible()).toEqual(false);
    await tab.getByLabel("Title", { exact: true }).fill("Kept secret");
    await tab.getByRole("button", { name: "New encrypted document", exact: true }).click();
    await tab.waitForURL(/#key=/);
    await tab.locator('.cm-content[contenteditable="true"]').waitFor();
    expect(await tab.locator(".key-remembered").textContent()).toContain("The key is stored in this browser");
    const keptLink = new URL(tab.url()).pathname + new URL(tab.url()).hash;

    await tab.goto(`${w.service.url}/`);
    await tab.getByLabel("Remember encrypted documents on this device", { exact: false }).uncheck();
    await tab.getByLabel("Title", { exact: true }).fill("Link only");
    await tab.getByRole("button", { name: "New encrypted document", exact: true }).click();
    await tab.waitForURL(/#key=/);
    await tab.locator(".key-warning").waitFor();
    const listed = async () => {
      await tab.goto(`${w.service.url}/`);
      const links = await tab.locator(".recent-list li a").all();
      return Promise.all(links.map(async (link) => `${await link.textContent()} ${await link.getAttribute("href")}`));
    };
    expect(await listed()).toEqual([`Kept secret ${keptLink}`]);
    await tab.screenshot({ path: join(w.shots, "start-page-remembered.png") });

    await tab.goBack();
    await tab.getByRole("button", { name: "Remember on this device" }).click();
    expect((await listed()).map((entry) => entry.split(" #")[0]!.split(" /d/")[0])).toEqual(["Link only", "Kept secret"]);
  });
});
