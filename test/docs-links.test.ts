import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/server-process.js";

// The README sends a newcomer into docs/, and the pages link each other and the README's sections:
// every relative link must reach a file, and every #anchor a heading of that file (GitHub's rule:
// lower case, punctuation dropped, spaces as hyphens). docs/README.md indexes every page. Comments in
// the code point into docs/ the same way, and must reach what they name too.

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

/** Every source file of the code, the tests, the benchmarks and the page, below the given folders. */
function sourceFiles(folders: string[]): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(join(REPO_ROOT, folder))) {
      const path = join(folder, name);
      if (name === "node_modules" || name === "generated") continue;
      if (statSync(join(REPO_ROOT, path)).isDirectory()) walk(path);
      else if (/\.(ts|js|mjs|css|html)$/.test(name)) files.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return files;
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

  it("are named in code comments only as pages and headings that exist", () => {
    const files = sourceFiles(["src", "test", "bench", "web", "scripts"]);
    const broken: string[] = [];
    let references = 0;
    for (const file of files) {
      for (const [reference, page = "", anchor] of readFileSync(join(REPO_ROOT, file), "utf8").matchAll(/\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
        references += 1;
        const path = `docs/${page}`;
        if (!existsSync(join(REPO_ROOT, path))) broken.push(`${file}: ${reference} (no such file)`);
        else if (anchor !== undefined && !anchorsOf(path).has(anchor)) broken.push(`${file}: ${reference} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
    // The scan reads the code: a folder renamed away would leave it nothing to check.
    expect(references).toBeGreaterThan(100);
  });

  it("index every page in docs/README.md", () => {
    const index = prose("docs/README.md");
    const unlisted = PAGES.filter((page) => page.startsWith("docs/") && page !== "docs/README.md")
      .map((page) => relative("docs", page))
      .filter((name) => !index.includes(`](${name})`));
    expect(unlisted).toEqual([]);
  });
});
