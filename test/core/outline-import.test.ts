import { describe, expect, it } from "vitest";
import { exportFileName, importFormatOf, importOutline } from "../../src/core/outline-formats.js";

// Files shaped as the outliners people come from write them (each sample written from the
// outliner's documented export format, docs/notation.md#opml), and hostile files, which get a
// clear answer quickly.

const WORKFLOWY = `<?xml version="1.0"?>
<opml version="2.0">
  <head>
    <ownerEmail>
      ada@example.com
    </ownerEmail>
  </head>
  <body>
    <outline text="Groceries" >
      <outline text="Milk" _complete="true" />
      <outline text="Bread" _note="Whole grain&#10;from the bakery" />
      <outline text="Fruit &amp; vegetables" >
        <outline text="Apples" />
      </outline>
    </outline>
    <outline text="Call the plumber" />
  </body>
</opml>`;

const DYNALIST = `<?xml version="1.0" encoding="utf-8"?>
<opml version="2.0">
  <head>
    <title>Release 2.0</title>
    <flavor>dynalist</flavor>
    <source>https://dynalist.io</source>
  </head>
  <body>
    <outline text="Release 2.0" checkbox="true">
      <outline text="Write release notes" checkbox="true" complete="true" colorLabel="2" />
      <outline text="Test the upgrade" checkbox="true" collapsed="true" _note="On staging first">
        <outline text="Back up the database" complete="true" />
      </outline>
      <outline text="Announce" />
    </outline>
  </body>
</opml>`;

// Logseq writes a block's paragraphs into its text with a leading space, keeps task markers as words,
// and nests blocks as outlines; an outline without text only holds its list.
const LOGSEQ = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head>
    <title>Weekly review</title>
  </head>
  <body>
    <outline text=" Inbox zero">
      <outline text="TODO Reply to Ben"/>
      <outline text="DONE Pay invoices"/>
    </outline>
    <outline>
      <outline text=" Reading list"/>
    </outline>
  </body>
</opml>`;

describe("importing OPML from other outliners", () => {
  it("reads Workflowy's export: _complete as a done box, a note as child lines", () => {
    expect(importOutline("opml", WORKFLOWY)).toEqual({
      ok: true,
      text: "Groceries\n  [x] Milk\n  Bread\n    Whole grain\n    from the bakery\n  Fruit & vegetables\n    Apples\nCall the plumber",
    });
  });

  it("reads Dynalist's export: checkbox and complete as boxes, its title, unknown attributes ignored", () => {
    expect(importOutline("opml", DYNALIST)).toEqual({
      ok: true,
      title: "Release 2.0",
      text: "[ ] Release 2.0\n  [x] Write release notes\n  [ ] Test the upgrade\n    On staging first\n    [x] Back up the database\n  Announce",
    });
  });

  it("reads Logseq's export: leading spaces dropped, task markers kept as words, a text-less outline's children lifted", () => {
    expect(importOutline("opml", LOGSEQ)).toEqual({ ok: true, title: "Weekly review", text: "Inbox zero\n  TODO Reply to Ben\n  DONE Pay invoices\nReading list" });
  });

  it("says what is wrong with a file that is not OPML", () => {
    expect(importOutline("opml", "<outline text='a'")).toEqual({ ok: false, problem: expect.stringMatching(/^the file is not well-formed XML: /) as unknown });
    expect(importOutline("opml", "<rss><channel/></rss>")).toEqual({ ok: false, problem: "the file is not OPML: its root element is <rss>, not <opml>" });
    expect(importOutline("opml", "<opml><head/></opml>")).toEqual({ ok: false, problem: "the file is not OPML: it has no <body>" });
  });
});

describe("hostile OPML", () => {
  const limits = { maxInputChars: 1_000_000, maxTextChars: 100_000, maxDepth: 1000 };

  it("refuses a document type declaration, so no entity is ever declared (billion laughs)", () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><opml version="2.0"><body><outline text="&lol2;"/></body></opml>`;
    expect(importOutline("opml", laughs, limits)).toEqual({
      ok: false,
      problem: "the file declares a document type (<!DOCTYPE>), which OPML never needs and which can declare entities: it is not read",
    });
    expect(importOutline("opml", '<opml><body><outline text="&lol;"/></body></opml>', limits)).toEqual({
      ok: false,
      problem: expect.stringMatching(/^the file is not well-formed XML: Named entity isn't defined: &lol;/) as unknown,
    });
  });

  it("refuses a file nested deeper than the limit before parsing it, in moments", () => {
    const deep = `<opml><body>${'<outline text="x">'.repeat(100_000)}${"</outline>".repeat(100_000)}</body></opml>`;
    const started = performance.now();
    expect(importOutline("opml", deep, { ...limits, maxInputChars: 10_000_000 })).toEqual({ ok: false, problem: "the file nests deeper than 1000 levels" });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("refuses a file longer than the limit, and a text that would grow past it", () => {
    expect(importOutline("opml", `<opml><body>${"<outline/>".repeat(200_000)}</body></opml>`, limits)).toEqual({ ok: false, problem: "the file is longer than 1,000,000 characters" });
    // 900 levels of nesting, then many leaves: each leaf's line is 1,800 spaces of indentation.
    const wide = `<opml><body>${'<outline text="x">'.repeat(900)}${'<outline text="leaf"/>'.repeat(100)}${"</outline>".repeat(900)}</body></opml>`;
    expect(importOutline("opml", wide, limits)).toEqual({ ok: false, problem: "the imported text would be longer than 100,000 characters" });
  });
});

describe("importing Markdown", () => {
  it("nests list items by their column whatever the marker and indentation, and keeps task boxes", () => {
    const markdown = "* Launch\n    * [X] Write notes\n    + [ ] Test upgrade\n\t\t1. on staging\n- Announce\n";
    expect(importOutline("markdown", markdown)).toEqual({ ok: true, text: "Launch\n  [X] Write notes\n  [ ] Test upgrade\n    1. on staging\nAnnounce" });
  });

  it("nests what follows a heading under it, and a paragraph under the item it continues", () => {
    const markdown = "# Plan\n\nIntro line\n\n## Tasks\n- Ship\n  the release\n  - Tag it\n- Tell people\nlazy continuation\n\nAfter the list\n```\n- not an item\n```\n";
    expect(importOutline("markdown", markdown)).toEqual({
      ok: true,
      text: "Plan\n\n  Intro line\n\n  Tasks\n    Ship\n      the release\n      Tag it\n    Tell people\n      lazy continuation\n\n    After the list\n    ```\n    - not an item\n    ```",
    });
  });

  it("reads Logseq's Markdown pages: tab-indented blocks, task markers kept as words", () => {
    expect(importOutline("markdown", "- TODO Reply to Ben\n\t- DONE Pay invoices\n\t\t- receipt\n- Notes\n")).toEqual({
      ok: true,
      text: "TODO Reply to Ben\n  DONE Pay invoices\n    receipt\nNotes",
    });
  });

  it("refuses a list nested deeper than the limit", () => {
    const deep = Array.from({ length: 1200 }, (_, k) => `${" ".repeat(k)}- x`).join("\n");
    expect(importOutline("markdown", deep)).toEqual({ ok: false, problem: "the file nests deeper than 1000 levels" });
  });
});

describe("files", () => {
  it("tells the format by the name, else by the first characters", () => {
    expect(["a.md", "A.MARKDOWN", "x.opml", "x.xml", "notes.txt"].map((name) => importFormatOf(name, ""))).toEqual(["markdown", "markdown", "opml", "opml", "text"]);
    expect([importFormatOf("export", '\uFEFF<?xml version="1.0"?><opml/>'), importFormatOf("export", "<opml>"), importFormatOf("notes", "- a")]).toEqual(["opml", "opml", "markdown"]);
  });

  it("names an export after the title, without what file systems refuse", () => {
    expect(exportFileName("Launch plan", "markdown")).toEqual("Launch plan.md");
    expect(exportFileName('a/b\\c:d*e?"f<g>h|i\u0001', "opml")).toEqual("a b c d e f g h i.opml");
    expect(exportFileName("...", "text")).toEqual("outline.txt");
    expect(exportFileName("Übersicht 日本", "text")).toEqual("Übersicht 日本.txt");
    expect(exportFileName("x".repeat(300), "text")).toEqual(`${"x".repeat(120)}.txt`);
  });
});
