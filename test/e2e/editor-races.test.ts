/**
 * Two people at one place at the same moment, in two Chromium pages against the real service: the
 * races of docs/editing-protocol.md, "The merge rule". Ann replaces a line while Bob types inside
 * it; both type at the end of one line; both press Enter after one line and type lines. Each race
 * runs its trials at two typing speeds on one document and two pages (race-support.ts puts the text
 * back between trials): 20 a speed. The same-point and new-lines races run again with the second
 * person starting 50 to 100 ms after the first (seeded: FOLIO_SEED), 6 trials a speed (20 with
 * `npm run test:races`, FOLIO_RACE_TRIALS=20; the late new-lines race only there, see below): a
 * remote text then meets one's own text already typed
 * (docs/editing-protocol.md, "What the rule does not cover yet"). Every trial must end on one of the
 * texts the rule allows, on both pages and the service alike.
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Page } from "playwright-core";
import { describe, it } from "vitest";
import { browserFound, createDocument, sideBySide } from "./e2e-support.js";
import { requireBrowser, useEditorWorld } from "./e2e-world.js";
import { expectOutcome, reset, settled, toLine, type Race } from "./race-support.js";
import { prng } from "../support/prng.js";

requireBrowser("test/e2e/editor-races.test.ts");

/** FOLIO_RACE_TRIALS: trials a speed for every race in place of the counts below (`npm run test:races`: 20). */
const trialsOf = (count: number) => Number(process.env.FOLIO_RACE_TRIALS || count);

/** The pause between two keys (playwright's `type` delay) at each speed, in ms. */
const SPEEDS = [0, 60];

/** The seed of the late starts (printed in every trial's name that uses one). */
const SEED = Number(process.env.FOLIO_SEED || 20_261_128);
const random = prng(SEED);
/** How much later the second person starts, in ms: 50 to 100, seeded. */
const lateStart = () => 50 + Math.floor(random() * 51);

/** Run in a page: keeps the text of line 1 as the person's first key finds it (before the key acts). */
const FIRST_KEY_SEES_LINE = `document.addEventListener("keydown", () => { window.__lineAtFirstKey = document.querySelectorAll(".cm-content > .cm-line")[1].textContent; }, { capture: true, once: true })`;

/** `lines` joined, with `middle` put in place of line `at`. */
const withLine = (lines: string[], at: number, middle: string[]) => [...lines.slice(0, at), ...middle, ...lines.slice(at + 1)].join("\n");

describe.skipIf(!browserFound)("two people typing at one place at once, in Chromium", { timeout: 120_000 }, () => {
  const w = useEditorWorld();

  async function openRace(title: string, start: string): Promise<Race> {
    const id = await createDocument(w.service.url, title, start);
    const [ann, bob] = await Promise.all([w.author(id, "Ann"), w.author(id, "Bob")]);
    return { url: w.service.url, id, title, start, ann: ann.tab, bob: bob.tab };
  }

  /**
   * Runs `count` trials at each speed from the start text: both cursors placed by `place`, then
   * Ann's and Bob's keys started together (who starts first alternates; with `late`, the second that
   * many ms after the first), then the settled text checked.
   * With `lineSeenByAnn`, a trial where Ann's first key met another line 1 than that (Bob's keys had
   * already reached her page: her selection held them, and her typing took them out, as the rule
   * says) was no race at the same moment: it is run again, at most 5 times in all, and said so.
   */
  async function trials(race: Race, count: number, steps: { place: (tab: Page, who: "ann" | "bob") => Promise<void>; ann: string; bob: string; check: (text: string, name: string) => void; lineSeenByAnn?: string; late?: () => number }): Promise<void> {
    const started = Date.now();
    const outcomes = new Map<string, number>();
    let again = 0;
    for (const delay of SPEEDS) {
      for (let k = 1; k <= count; k++) {
        const wait = steps.late?.() ?? 0;
        const name = `${race.title}, trial ${k} of ${count} at ${delay} ms a key${wait > 0 ? `, the second ${wait} ms later (FOLIO_SEED=${SEED})` : ""}`;
        await reset(race);
        await Promise.all([steps.place(race.ann, "ann"), steps.place(race.bob, "bob")]);
        await race.ann.evaluate(FIRST_KEY_SEES_LINE);
        const typing = [() => race.ann.keyboard.type(steps.ann, { delay }), () => race.bob.keyboard.type(steps.bob, { delay })];
        await Promise.all((k % 2 === 1 ? typing : typing.reverse()).map((type, n) => (n === 0 ? type() : sleep(wait).then(type))));
        const seen = await race.ann.evaluate<string>("window.__lineAtFirstKey");
        if (steps.lineSeenByAnn !== undefined && seen !== steps.lineSeenByAnn && again < 5) {
          console.log(`${name}: Bob's keys were on Ann's page before her first key (${JSON.stringify(seen)}); run again`);
          await settled(race, name);
          again++;
          k--;
          continue;
        }
        const text = await settled(race, name);
        steps.check(text, name);
        outcomes.set(text, (outcomes.get(text) ?? 0) + 1);
      }
    }
    const seen = [...outcomes].map(([text, times]) => `${times} × ${JSON.stringify(text)}`).join(", ");
    console.log(`${race.title}: ${SPEEDS.length * count} trials in ${Date.now() - started} ms; ${seen}`);
  }

  it("keeps Ann's replacement of a line and Bob's word typed inside it, the deleted words gone", async () => {
    const lines = ["Notes", "second line x1 y2 z3", "Done"];
    const race = await openRace("Replace race", lines.join("\n"));
    await trials(race, trialsOf(20), {
      // Ann selects the whole line (Home, Shift+End); Bob's cursor goes right after "second" (a word to the right).
      place: async (tab, who) => {
        await toLine(tab, 1, "Home");
        await tab.keyboard.press(who === "ann" ? "Shift+End" : "Control+ArrowRight");
      },
      ann: "replaced by Ann",
      bob: "BOB",
      lineSeenByAnn: lines[1],
      // Bob's word survives at the point of Ann's deletion: before her text or after it.
      check: (text, name) =>
        expectOutcome(name, text, {
          typed: ["replaced by Ann", "BOB"],
          deleted: ["second", "line", "x1", "y2", "z3"],
          allowed: [withLine(lines, 1, ["BOBreplaced by Ann"]), withLine(lines, 1, ["replaced by AnnBOB"])],
        }),
    });
  });

  async function samePointRace(title: string, count: number, late?: () => number): Promise<void> {
    const lines = ["Launch", "Release on", "Done"];
    const race = await openRace(title, lines.join("\n"));
    const [ann, bob] = [" Monday via blog", " Tuesday via email"];
    await trials(race, trialsOf(count), {
      place: (tab) => toLine(tab, 1, "End"),
      ann,
      bob,
      ...(late ? { late } : {}),
      check: (text, name) =>
        expectOutcome(name, text, {
          typed: [ann, bob],
          deleted: [],
          allowed: [withLine(lines, 1, [`Release on${ann}${bob}`]), withLine(lines, 1, [`Release on${bob}${ann}`])],
        }),
    });
  }

  async function newLinesRace(title: string, count: number, late?: () => number): Promise<Race> {
    const lines = ["Launch", "Steps", "Done"];
    const race = await openRace(title, lines.join("\n"));
    const [ann, bob] = [["a1", "a2", "a3"], ["b1", "b2", "b3"]];
    await trials(race, trialsOf(count), {
      place: (tab) => toLine(tab, 1, "End"),
      // playwright's `type` presses Enter for "\n".
      ann: `\n${ann.join("\n")}`,
      bob: `\n${bob.join("\n")}`,
      ...(late ? { late } : {}),
      check: (text, name) =>
        expectOutcome(name, text, {
          typed: [ann.join("\n"), bob.join("\n")],
          deleted: [],
          allowed: [withLine(lines, 1, ["Steps", ...ann, ...bob]), withLine(lines, 1, ["Steps", ...bob, ...ann])],
        }),
    });
    return race;
  }

  it("keeps two people's words typed at the end of one line each whole, one after the other", async () => {
    await samePointRace("Same point race", 20);
  });

  it("keeps those words whole when one person starts 50 to 100 ms after the other", async () => {
    await samePointRace("Same point race, one late", 6, lateStart);
  });

  it("keeps the lines two people type after one line in one block each, in order", async () => {
    const race = await newLinesRace("New lines race", 20);

    await sideBySide(w.browser, [{ caption: "Ann", png: await race.ann.screenshot() }, { caption: "Bob", png: await race.bob.screenshot() }], join(w.shots, "editor-races.png"));
  });

  // Known to fail about once in 300 trials on a loaded machine (`a1 a2 b1 b2 b3 a3`: the second person's lines
  // between the first's; docs/editing-protocol.md, "What the rule does not cover yet"), so `npm test`
  // leaves this one out; `npm run test:races` runs it (FOLIO_RACE_TRIALS).
  it.skipIf(!process.env.FOLIO_RACE_TRIALS)("keeps those lines in one block each when one person starts 50 to 100 ms after the other", async () => {
    await newLinesRace("New lines race, one late", 6, lateStart);
  });
});
