/**
 * The races of test/e2e/editor-races.test.ts: one document and two pages kept open across trials,
 * its text put back through the API before each trial (a remote change to both pages, nobody's own
 * typing), both people's keys started together, and each trial's outcome checked against the texts
 * the merge rule allows (docs/editing-protocol.md, "The merge rule"), with the trial and both pages'
 * texts in the message of any failure.
 */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { editorText, expectConverged } from "./e2e-support.js";

export interface Race {
  url: string;
  id: string;
  title: string;
  start: string;
  ann: Page;
  bob: Page;
}

/** Puts the document back to the race's start through the API and waits until both pages show it. */
export async function reset(race: Race): Promise<void> {
  const response = await fetch(`${race.url}/api/v1/documents/${race.id}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: race.title, content: race.start }),
  });
  expect(response.status).toEqual(200);
  expect(await expectConverged(race.url, race.id, [race.ann, race.bob])).toEqual(race.start);
}

/** The settled text of a trial: both pages and the service equal and saved; else fails naming the trial and both pages' texts. */
export async function settled(race: Race, trial: string): Promise<string> {
  try {
    return await expectConverged(race.url, race.id, [race.ann, race.bob]);
  } catch (error) {
    const [ann, bob] = await Promise.all([editorText(race.ann), editorText(race.bob)]);
    throw new Error(`${trial}: the pages did not converge; Ann's page ${JSON.stringify(ann)}, Bob's page ${JSON.stringify(bob)}`, { cause: error });
  }
}

/** Whether `text` holds `word` exactly once, in one piece. */
const once = (text: string, word: string) => text.split(word).length === 2;

/** The characters of a text, sorted: "no letter lost or doubled" compares these. */
const multiset = (text: string) => [...text].sort().join("");

/**
 * Checks one trial's settled text: each typed run there once and whole, no deleted run back, the
 * characters exactly those of an allowed text, and the text one of those allowed.
 */
export function expectOutcome(trial: string, text: string, rule: { typed: string[]; deleted: string[]; allowed: string[] }): void {
  const message = `${trial}: ${JSON.stringify(text)}`;
  for (const word of rule.typed) expect(once(text, word), `${message} holds ${JSON.stringify(word)} once and whole`).toEqual(true);
  for (const word of rule.deleted) expect(text.includes(word), `${message} brings back the deleted ${JSON.stringify(word)}`).toEqual(false);
  expect(multiset(text), `${message} has other characters than the allowed texts`).toEqual(multiset(rule.allowed[0]!));
  expect(rule.allowed, `${message} is none of the allowed texts`).toContain(text);
}

/** Puts the cursor at the start (or end) of line `index` (0-based) by keys alone: cheaper than a click, once per trial. */
export async function toLine(tab: Page, index: number, where: "Home" | "End"): Promise<void> {
  await tab.locator(".cm-content").focus();
  // At the start of the first line, ArrowDown keeps the column: the start of each line below.
  await tab.keyboard.press("Control+Home");
  for (let k = 0; k < index; k++) await tab.keyboard.press("ArrowDown");
  if (where === "End") await tab.keyboard.press("End");
}
