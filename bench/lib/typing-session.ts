/**
 * One editor page the editor-typing scenario types into (bench/scenarios/editor-typing.ts): its
 * document (an outline generated from a seed), the line the keys go to, the page with the probe
 * (key-probe.ts) and its CDP session, and what it was typed so far, so that the service's text can
 * be checked against it at the end.
 */
import type { Browser, CDPSession } from "playwright-core";
import { openEditor, waitForStatus, type EditorTab } from "./browser.js";
import { installProbe, takeKeys, typeOnClock, type KeyTiming } from "./key-probe.js";
import { mainThreadTimes, timesBetween, type MainThreadTimes } from "./page-profile.js";

const WORDS = "plan review draft ship check release notes editor outline sync test build deploy write read merge fix bug story task owner date meeting budget design".split(" ");

/**
 * An outline of `count` lines of about `width` characters: nodes indented by two spaces per level
 * (a walk between 0 and 4 levels), a third of them with a `[ ]` / `[x]` box, one in ten with a
 * `#US-` / `#T-` link. Line `target` is the same short node in every document: the keys go to its end.
 */
export function outline(count: number, width: number, target: number, random: () => number): string[] {
  const lines: string[] = [];
  let depth = 0;
  for (let i = 0; i < count; i++) {
    depth = Math.max(0, Math.min(4, depth + Math.floor(random() * 3) - 1));
    const box = random() < 0.33 ? (random() < 0.5 ? "[ ] " : "[x] ") : "";
    const link = random() < 0.1 ? ` ${random() < 0.5 ? "#US" : "#T"}-${1 + Math.floor(random() * 900)}` : "";
    let line = `${"  ".repeat(depth)}${box}`;
    const goal = width - 10 + Math.floor(random() * 21) - link.length;
    while (line.length < goal) line += `${WORDS[Math.floor(random() * WORDS.length)]} `;
    lines.push(`${line.trimEnd()}${link}`);
  }
  lines[target] = "  [ ] draft the notes for the editor";
  return lines;
}

/** `count` keys of lower-case words and single spaces. */
export function words(count: number, random: () => number): string {
  let text = "";
  while (text.length < count) text += `${WORDS[Math.floor(random() * WORDS.length)]} `;
  return text.slice(0, count);
}

/** The two paces: a steady typist, and a fast one (uniform between 30 and 50 ms, about 25 keys a second). */
export const PACES = [
  { id: "steady", label: "1 key / 200 ms", interval: (_random: () => number) => 200 },
  { id: "fast", label: "1 key / 30–50 ms", interval: (random: () => number) => 30 + random() * 20 },
] as const;
export type PaceId = (typeof PACES)[number]["id"];

/** One pace: key i goes `interval()` ms after key i − 1. */
export function offsets(count: number, interval: () => number): number[] {
  const out: number[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    out.push(at);
    at += interval();
  }
  return out;
}

export interface BlockResult {
  keys: KeyTiming[];
  times: MainThreadTimes;
  lateP50Ms: number;
  lateMaxMs: number;
}

export class TypingTab {
  private typed = "";

  private constructor(
    readonly label: string,
    readonly id: string,
    readonly lines: readonly string[],
    readonly target: number,
    readonly tab: EditorTab,
    readonly session: CDPSession,
  ) {}

  /** Opens the document in a page of its own, puts the cursor at the end of line `target` and installs the probe. */
  static async open(browser: Browser, origin: string, label: string, id: string, lines: readonly string[], target: number): Promise<TypingTab> {
    const tab = await openEditor(browser, origin, id);
    const session = await tab.context.newCDPSession(tab.page);
    await session.send("Performance.enable", { timeDomain: "threadTicks" });
    const typing = new TypingTab(label, id, lines, target, tab, session);
    await typing.placeCursor();
    const base = await installProbe(tab.page);
    if (base !== lines[target]!.length) throw new Error(`${label}: the cursor's line has ${base} characters, line ${target + 1} has ${lines[target]!.length}`);
    return typing;
  }

  /** Scrolls line `target` into view (the editor renders only what is near the viewport), clicks it and presses End. */
  private async placeCursor(): Promise<void> {
    const { page } = this.tab;
    const number = this.target + 1;
    // The page scrolls (the editor grows with its text) unless the editor is its own scroller.
    const find = `(() => {
      const scroller = document.querySelector(".cm-scroller");
      const scrolling = scroller.scrollHeight > scroller.clientHeight + 1 ? scroller : document.scrollingElement;
      const middle = innerHeight / 2;
      // Not the gutter's hidden spacer (it holds the widest number).
      const gutters = [...document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")].filter((e) => e.style.visibility !== "hidden");
      const gutter = gutters.find((e) => e.textContent === "${number}");
      if (gutter) {
        const r = gutter.getBoundingClientRect();
        if (Math.abs(r.top + r.height / 2 - middle) < innerHeight / 4) return { y: r.top + r.height / 2 };
        scrolling.scrollTop += r.top - middle;
        return undefined;
      }
      const shown = gutters.map((e) => Number(e.textContent)).filter((n) => n > 0);
      const lineHeight = document.querySelector(".cm-content").getBoundingClientRect().height / ${this.lines.length};
      const seen = shown.length > 0 ? (Math.min(...shown) + Math.max(...shown)) / 2 : 1;
      scrolling.scrollTop += (${number} - seen) * lineHeight;
      return undefined;
    })()`;
    for (let attempt = 0; attempt < 20; attempt++) {
      const at = await page.evaluate<{ y: number } | undefined>(find);
      if (at) {
        const content = await page.locator(".cm-content").boundingBox();
        if (!content) throw new Error("no editor content box");
        await page.mouse.click(content.x + 40, at.y);
        await page.keyboard.press("End");
        // The target line's text is found on no other line (outline() writes it so).
        const active = await page.evaluate<string | null>(`document.querySelector(".cm-activeLine")?.textContent ?? null`);
        if (active === this.lines[this.target]) return;
      }
      await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");
    }
    throw new Error(`${this.label}: could not put the cursor on line ${number}`);
  }

  /**
   * Types `text` on the clock `at` (ms offsets), then waits until every key is painted and the page
   * has synced again; the main thread's time is that of the whole block, sync included.
   */
  async block(text: string, at: readonly number[]): Promise<BlockResult> {
    await this.tab.page.bringToFront();
    const before = await mainThreadTimes(this.session);
    const clock = await typeOnClock(this.session, text, at);
    this.typed += text;
    const keys = await takeKeys(this.tab.page);
    await waitForStatus(this.tab.page, "synced", 20_000);
    const times = timesBetween(before, await mainThreadTimes(this.session));
    if (keys.length !== text.length) throw new Error(`${this.label}: ${text.length} keys typed, the page saw ${keys.length} keydowns`);
    return { keys, times, ...clock };
  }

  /** What the service's text must be now: the document with everything typed at the end of line `target`. */
  expected(): string {
    return this.lines.map((line, i) => (i === this.target ? line + this.typed : line)).join("\n");
  }

  get typedCount(): number {
    return this.typed.length;
  }

  async close(): Promise<void> {
    await this.tab.context.close();
  }
}
