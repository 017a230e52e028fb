/**
 * axe-core (the npm package, read from node_modules) run inside a page of the E2E tests: the rules
 * of WCAG 2.1 A and AA and axe's best practices, on everything the page shows now. The script is
 * evaluated through the browser's debugging protocol, so the page's Content-Security-Policy stays as
 * it is served.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Each violation as "rule: the elements it found", empty when the page has none. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(`${AXE_SOURCE}\n;undefined`);
  return page.evaluate<string[]>(
    `axe.run(document, { resultTypes: ["violations"] }).then((result) =>
      result.violations.map((violation) => violation.id + ": " + violation.nodes.slice(0, 4).map((node) => node.target.join(" ")).join(", ")))`,
  );
}
