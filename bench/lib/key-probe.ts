/**
 * Key press to painted frame, measured in the page (bench/scenarios/editor-typing.ts, docs/benchmarks.md).
 *
 * Keys go in as real input: CDP Input.dispatchKeyEvent, the way playwright-core's keyboard types,
 * but sent on the typist's clock without waiting for the page to take the previous key, so a busy
 * page makes keys queue as a person's would. In the page (a string: the bench code is type-checked
 * without the DOM library), a keydown listener in the capture phase on the window, ahead of the
 * editor's, takes every printable key:
 * - pressed: the event's timeStamp, the time the browser received the key (before any queueing on
 *   the page's main thread);
 * - handled: performance.now() in that listener (handled − pressed is the input delay);
 * - painted: from the next animation frame on, each frame's requestAnimationFrame callback looks
 *   whether the line with the cursor holds the key's character yet (its length ≥ the length at the
 *   start + the keys typed so far, ticket badges left out); in the first frame where it does, a
 *   MessageChannel message posted from that callback runs right after the frame's rendering (style,
 *   layout, paint: the same task), and its performance.now() is the key's paint time. Pixels reach the
 *   screen a little later (raster and display happen off the main thread and are not counted).
 * A key not shown within 120 frames (2 s) is never painted: it counts as ∞.
 */
import type { CDPSession, Page } from "playwright-core";

const PROBE = `(() => {
  if (window.__typing) return;
  const lineLength = () => {
    const node = document.getSelection()?.focusNode;
    const line = (node && node.nodeType === 3 ? node.parentElement : node)?.closest?.(".cm-line");
    if (!line) return -1;
    let badges = 0;
    for (const badge of line.querySelectorAll(".cm-ticket-badge")) badges += (badge.textContent ?? "").length;
    return (line.textContent ?? "").length - badges;
  };
  const probe = { keys: [], typed: 0, base: lineLength() };
  window.__typing = probe;
  window.addEventListener("keydown", (event) => {
    if (event.key.length !== 1 || event.ctrlKey || event.altKey || event.metaKey) return;
    const key = { pressed: event.timeStamp, handled: performance.now(), painted: -1, frames: 0 };
    const wanted = probe.base + ++probe.typed;
    probe.keys.push(key);
    const frame = () => {
      key.frames++;
      if (lineLength() >= wanted) {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          key.painted = performance.now();
          channel.port1.close();
        };
        channel.port2.postMessage(0);
      } else if (key.frames < 120) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }, { capture: true });
})()`;

export interface KeyTiming {
  /** painted − pressed, ms (∞ when never painted). */
  latencyMs: number;
  /** handled − pressed, ms. */
  inputDelayMs: number;
  /** Animation frames looked at until the character showed. */
  frames: number;
}

/** Installs the probe once the cursor is on the line to type on; returns that line's length. */
export async function installProbe(page: Page): Promise<number> {
  await page.evaluate(PROBE);
  return page.evaluate<number>("window.__typing.base");
}

/** Waits (at most `ms`) until every key so far has its paint time or gave up, then takes them out of the page. */
export async function takeKeys(page: Page, ms = 3_000): Promise<KeyTiming[]> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const pending = await page.evaluate<number>("window.__typing.keys.filter((k) => k.painted < 0 && k.frames < 120).length");
    if (pending === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const keys = await page.evaluate<Array<{ pressed: number; handled: number; painted: number; frames: number }>>("window.__typing.keys.splice(0)");
  return keys.map((k) => ({ latencyMs: k.painted < 0 ? Number.POSITIVE_INFINITY : k.painted - k.pressed, inputDelayMs: k.handled - k.pressed, frames: k.frames }));
}

/** The CDP fields of a printable key on a US layout (letters and space only: what the scenario types). */
function keyFields(char: string): { key: string; code: string; windowsVirtualKeyCode: number } {
  if (char === " ") return { key: " ", code: "Space", windowsVirtualKeyCode: 32 };
  if (!/^[a-z]$/.test(char)) throw new Error(`only a–z and space are typed, not ${JSON.stringify(char)}`);
  return { key: char, code: `Key${char.toUpperCase()}`, windowsVirtualKeyCode: char.toUpperCase().charCodeAt(0) };
}

/**
 * Types `text` into the focused element of the page behind `session`, key i at `start + offsets[i]`
 * ms (performance.now() of this process), each key's keyDown (with its text) and keyUp sent without
 * waiting for the page. Resolves when the browser has taken every key; returns how late the sends were.
 */
export async function typeOnClock(session: CDPSession, text: string, offsets: readonly number[]): Promise<{ lateP50Ms: number; lateMaxMs: number }> {
  const sends: Promise<unknown>[] = [];
  const late: number[] = [];
  const start = performance.now() + 20;
  for (let i = 0; i < text.length; i++) {
    const due = start + offsets[i]!;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    else await new Promise((resolve) => setImmediate(resolve));
    late.push(performance.now() - due);
    const fields = keyFields(text[i]!);
    sends.push(session.send("Input.dispatchKeyEvent", { type: "keyDown", ...fields, text: text[i]!, unmodifiedText: text[i]! }));
    sends.push(session.send("Input.dispatchKeyEvent", { type: "keyUp", ...fields }));
  }
  await Promise.all(sends);
  late.sort((a, b) => a - b);
  return { lateP50Ms: late[Math.floor(late.length / 2)] ?? 0, lateMaxMs: late[late.length - 1] ?? 0 };
}
