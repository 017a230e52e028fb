import { expect, it } from "vitest";
import { createClient, createEncryptedDocument, FolioError, generateDocumentKey, importFormatOf, importOutline, withDocumentKey } from "../../src/client/index.js";
import { servedAppPerTest } from "../support/app-per-test.js";

// Export and import through the client library (docs/notation.md#export-and-import): the service's
// files for a plain document, the same conversions run locally for an encrypted one, whose text
// never reaches the service.

const s = servedAppPerTest();
const TEXT = "Launch\n  [ ] Write notes\n  [x] Test upgrade";

it("downloads a plain document, a version of it and its read-only link's file, named after the title", async () => {
  const created = await s.client.createDocument({ title: "Launch plan", content: TEXT });
  await s.client.replaceDocument(created.id, { title: "Launch plan", content: `${TEXT}\nAnnounce` });
  const { readId } = await s.client.read.createLink(created.id);

  expect(await s.client.exportDocument(created.id, "markdown")).toEqual({
    format: "markdown",
    fileName: "Launch plan.md",
    mediaType: "text/markdown; charset=utf-8",
    text: "- Launch\n  - [ ] Write notes\n  - [x] Test upgrade\n- Announce\n",
  });
  expect((await s.client.exportDocument(created.id, "text", { version: 1 })).text).toBe(`${TEXT}\n`);
  expect(await s.client.read.export(readId, "opml")).toMatchObject({ fileName: "Launch plan.opml", mediaType: "text/x-opml; charset=utf-8" });
  const unknown = await s.client.exportDocument(created.id, "text", { version: 9 }).catch((error: unknown) => error);
  expect(unknown).toBeInstanceOf(FolioError);
  expect((unknown as FolioError).status).toBe(404);
});

it("exports an encrypted document by converting its plain text here: no export request, no plain text on the wire", async () => {
  const sent: string[] = [];
  const recording = createClient({
    baseUrl: s.baseUrl,
    fetch: async (input, init) => {
      sent.push(`${init?.method ?? "GET"} ${input instanceof Request ? input.url : input.toString()} ${typeof init?.body === "string" ? init.body : ""}`);
      return fetch(input, init);
    },
  });
  const key = generateDocumentKey();
  const created = await createEncryptedDocument(recording, { title: "Secret plan", content: TEXT }, key);
  const keyed = withDocumentKey(recording, key);
  const { readId } = await recording.read.createLink(created.id);

  expect(await keyed.exportDocument(created.id, "opml")).toEqual({
    format: "opml",
    fileName: "Secret plan.opml",
    mediaType: "text/x-opml; charset=utf-8",
    text: [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<opml version="2.0">',
      "  <head>",
      "    <title>Secret plan</title>",
      "  </head>",
      "  <body>",
      '    <outline text="Launch">',
      '      <outline text="Write notes" checkbox="true"/>',
      '      <outline text="Test upgrade" checkbox="true" complete="true" _complete="true"/>',
      "    </outline>",
      "  </body>",
      "</opml>",
      "",
    ].join("\n"),
  });
  expect((await keyed.read.export(readId, "markdown")).text).toBe("- Launch\n  - [ ] Write notes\n  - [x] Test upgrade\n");
  expect((await keyed.exportDocument(created.id, "text", { version: 1 })).text).toBe(`${TEXT}\n`);
  expect(sent.filter((request) => request.includes("/export"))).toEqual([]);
  expect(sent.filter((request) => request.includes("Write notes") || request.includes("Secret plan"))).toEqual([]);
});

it("imports a file as a new encrypted document: converted here, only ciphertext sent", async () => {
  const opml = '<?xml version="1.0"?><opml version="2.0"><head><title>From Dynalist</title></head><body><outline text="Ship" checkbox="true"><outline text="Tag it" complete="true"/></outline></body></opml>';
  const imported = importOutline(importFormatOf("list.opml", opml), opml);
  if (!imported.ok) throw new Error(imported.problem);
  const key = generateDocumentKey();

  const created = await createEncryptedDocument(s.client, { title: imported.title ?? "list", content: imported.text }, key);

  const stored = await s.client.getDocument(created.id);
  expect(stored.content).not.toContain("Ship");
  expect(await withDocumentKey(s.client, key).getDocument(created.id)).toMatchObject({ title: "From Dynalist", content: "[ ] Ship\n  [x] Tag it" });
});
