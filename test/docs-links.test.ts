import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/server-process.js";

// The README sends a newcomer into docs/, and the pages link each other and the README's sections:
// every relative link must reach a file, and every #anchor a heading of that file (GitHub's rule:
// lower case, punctuation dropped, spaces as hyphens). docs/README.md indexes every page.

const PAGES = ["README.md", ...readdirSync(join(REPO_ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

/** The text without fenced code blocks, where a `](` is no link. */
function prose(path: string): string {
  return readFileSync(join(REPO_ROOT, path), "utf8").replace(/^```[\s\S]*?^```$/gm, "");
}

function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(path).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (heading ?? "")
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe("the README and docs/", () => {
  it("link only to files and headings that exist", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const [, target] of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (target === undefined || /^[a-z]+:/.test(target)) continue;
        const [path = "", anchor] = target.split("#");
        const file = path === "" ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(REPO_ROOT, file))) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(file).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("index every page in docs/README.md", () => {
    const index = prose("docs/README.md");
    const unlisted = PAGES.filter((page) => page.startsWith("docs/") && page !== "docs/README.md")
      .map((page) => relative("docs", page))
      .filter((name) => !index.includes(`](${name})`));
    expect(unlisted).toEqual([]);
  });
});
