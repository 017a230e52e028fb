import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/server-process.js";

// docs/architecture.md draws the write path and the long-poll path stop by stop. A drawing that no
// longer matches the code misleads the next maintainer more than none, so every file it names must
// exist under src/, and every `Class.method` it names must be a method of that class in the file of
// the same stop (or in a file named on the same line).

const PAGE = readFileSync(join(REPO_ROOT, "docs/architecture.md"), "utf8");

/** The fenced drawing that follows the heading `title`. */
function drawing(title: string): string {
  const at = PAGE.indexOf(`## ${title}\n`);
  expect(at, `no section "${title}"`).toBeGreaterThanOrEqual(0);
  const fence = /^```\n([\s\S]*?)^```$/m.exec(PAGE.slice(at));
  expect(fence, `no drawing under "${title}"`).not.toBeNull();
  return fence![1]!;
}

const FILE = /\b((?:http|service|core|storage|client|config)\/[\w/-]+\.ts)\b/g;
const METHOD = /\b([A-Z][A-Za-z]+)\.([a-z][A-Za-z]+)\b/g;

/** The problems of one drawing: files that do not exist, methods not found where the line says. */
function mismatches(text: string): string[] {
  const problems: string[] = [];
  // A stop starts with its file (after its number, if any); the lines under it continue it.
  let stopFiles: string[] = [];
  for (const line of text.split("\n")) {
    const files = [...line.matchAll(FILE)].map((match) => `src/${match[1]}`);
    for (const file of files) if (!existsSync(join(REPO_ROOT, file))) problems.push(`${file} does not exist`);
    if (/^\s*(?:\d+\s+)?[a-z]+\/[\w/-]+\.ts\b/.test(line)) stopFiles = files;
    const candidates = [...new Set([...files, ...stopFiles])].filter((file) => existsSync(join(REPO_ROOT, file)));
    for (const [, cls, method] of line.matchAll(METHOD)) {
      const found = candidates.some((file) => {
        const source = readFileSync(join(REPO_ROOT, file), "utf8");
        const body = source.slice(Math.max(0, source.search(new RegExp(`class ${cls}\\b`))));
        return source.includes(`class ${cls}`) && new RegExp(`\\n\\s+(?:(?:private|static|async|readonly) )*${method}\\s*[(<]`).test(body);
      });
      if (!found) problems.push(`${cls}.${method} is not in ${candidates.join(" or ") || "any file named on its stop"}`);
    }
  }
  return problems;
}

describe("docs/architecture.md", () => {
  it("draws the write path with files and methods that exist", () => {
    const text = drawing("The write path");
    expect([...text.matchAll(METHOD)].length).toBeGreaterThanOrEqual(4);
    expect(mismatches(text)).toEqual([]);
  });

  it("draws the long-poll path with files and methods that exist", () => {
    const text = drawing("The long-poll path");
    expect([...text.matchAll(METHOD)].length).toBeGreaterThanOrEqual(4);
    expect(mismatches(text)).toEqual([]);
  });

  it("would notice a method that is gone", () => {
    expect(mismatches(" 1 service/change-feed.ts   ChangeFeed.vanished")).toEqual([
      "ChangeFeed.vanished is not in src/service/change-feed.ts",
    ]);
    expect(mismatches(" 1 service/nowhere.ts   the route")).toEqual(["src/service/nowhere.ts does not exist"]);
  });
});
