import type { HistoryAt, HistoryEntryView } from "../../service/documents.js";
import { ANSWER_CACHE_BYTES } from "./answer-cache.js";

/** What is kept of one history: its milestones' JSON (they never change), and its newest state's at one version. */
interface Kept {
  /** The version of the history this was written for. */
  version: number;
  /** The newest milestone version in `milestones`; 0 for none. */
  through: number;
  milestones: Buffer[];
  newest?: { version: number; json: Buffer };
  bytes: number;
}

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/**
 * The history answers of one route, written in parts: a milestone's JSON is written once and kept
 * (new milestones only ever come after the last one), the newest state's once per version, and an
 * answer joins the parts. So a new version costs the JSON of one text, not of every milestone's,
 * and no milestone's text is read from the store twice. Milestones are read one at a time, so that
 * no single step holds the event loop for more than one text. Histories are kept by key (a
 * document or a read link), the most recently used within ANSWER_CACHE_BYTES; one larger than half
 * of that is written anew for every answer (one text at a time).
 */
export class HistoryAnswers {
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;
  /** Answers being written: requests for the same history at the same version share one. */
  private readonly writing = new Map<string, Promise<Buffer>>();

  constructor(
    /** The entry as the route's answer shows it. */
    private readonly toJson: (entry: HistoryEntryView) => object,
    private readonly maxBytes = ANSWER_CACHE_BYTES,
  ) {}

  /** The JSON of `history` (one of `key`'s), from what is kept and what is new. */
  answer(key: string, history: HistoryAt): Promise<Buffer> {
    const at = `${key}\u0000${history.version}`;
    let answer = this.writing.get(at);
    if (answer === undefined) {
      answer = this.write(key, history).finally(() => this.writing.delete(at));
      this.writing.set(at, answer);
    }
    return answer;
  }

  private async write(key: string, history: HistoryAt): Promise<Buffer> {
    const before = this.kept.get(key);
    const milestones = [...(before?.milestones ?? [])];
    let through = before?.through ?? 0;
    // One milestone at a time: each is a whole text to read and write, and the event loop serves
    // other requests between them.
    for (let read = 0; read < 1_000_000; read++) {
      const [entry] = await history.milestonesAfter(through, 1);
      if (entry === undefined) break;
      milestones.push(this.json(entry));
      through = entry.version;
    }
    let newest = before?.newest?.version === history.version ? before.newest : undefined;
    if (through !== history.version && newest === undefined) {
      const entry = await history.newest();
      if (entry !== undefined) newest = { version: history.version, json: this.json(entry) };
    }
    const parts = through === history.version || newest === undefined ? milestones : [...milestones, newest.json];
    this.keep(key, { version: history.version, through, milestones, ...(newest ? { newest } : {}), bytes: parts.reduce((sum, part) => sum + part.length, 0) });
    return Buffer.concat([OPEN, ...parts.flatMap((part, index) => (index === 0 ? [part] : [COMMA, part])), CLOSE]);
  }

  private json(entry: HistoryEntryView): Buffer {
    return Buffer.from(JSON.stringify(this.toJson(entry)), "utf8");
  }

  /** Keeps `kept` as the newest of `key` (and the most recently used), unless a newer one is kept already. */
  private keep(key: string, kept: Kept): void {
    const before = this.kept.get(key);
    if (before !== undefined) {
      if (before.version > kept.version) return;
      this.kept.delete(key);
      this.bytes -= before.bytes;
    }
    if (kept.bytes > this.maxBytes / 2) return;
    this.kept.set(key, kept);
    this.bytes += kept.bytes;
    for (const [oldest, old] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(oldest);
      this.bytes -= old.bytes;
    }
  }
}
