import { createClient, createEncryptedDocument, openDocument, withDocumentKey, type FolioClient, type LiveDocument, type TextEdit } from "../../src/client/index.js";
import type { Store } from "../../src/storage/store.js";
import { converged } from "./client-harness.js";
import { checkHistory, faultyFetch, SCENARIO_OPTIONS, type PatchLedger } from "./convergence.js";
import { prng } from "./prng.js";

/**
 * The seeded convergence scenario of the default, merging client: four live documents type words,
 * key by key and without waiting for each other, at random points of the same three lines, through
 * the faulty fetch of convergence.ts (delays, failures before sending, lost answers, requests sent
 * twice). Every editor keeps a cursor that it maps through the character edits of every remote
 * change, as an editor does, and types at it. Words are unique and end in "z" ("A7z", "C11z"), so
 * no word is part of another; a word may still end up glued to another one where the merge cannot
 * tell whose blank is whose, which `glued` reports.
 * At quiescence every live document holds the service's text, the
 * history has no gap, no patch was applied twice, the text still has its three lines, and every
 * word typed and every word of the first text is in it exactly once.
 */

export interface WordConvergenceOptions {
  seed: number;
  /** The service roots; live document k talks to baseUrls[k % baseUrls.length]. */
  baseUrls: readonly string[];
  store: Store;
  editors?: number;
  wordsPerEditor?: number;
  /** An encrypted document's key (docs/encryption.md): created encrypted, every live document opened with it. */
  key?: string;
}

export interface WordConvergenceReport {
  id: string;
  versions: number;
  patchesSent: number;
  faults: Record<string, number>;
  /** Patches answered 409 ContentConflict (then merged and sent again). */
  overlaps: number;
  words: number;
  /** Words that ended up glued to a neighbour, for FOLIO_REPORT (see above); never split or doubled. */
  glued: number;
  /** The final text, for FOLIO_REPORT. */
  text: string;
}

/** No word of it is part of another, nor of a typed word. */
export const FIRST_TEXT = "Plan release\nAnnounce soon\nShip today";
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Where `cursor` goes through `edits` (sorted, against the text before). Text put in right at it
 * goes after it with `assoc` -1 (the person is typing there: their word stays whole) and before it
 * with 1 (the cursor waits at the end of someone else's word, which may still grow).
 */
export function mapCursor(cursor: number, edits: readonly TextEdit[], assoc: -1 | 1): number {
  let shift = 0;
  for (const edit of edits) {
    if (edit.from > cursor || (edit.from === cursor && assoc < 0)) break;
    if (edit.to > cursor) return edit.from + shift + edit.insert.length;
    shift += edit.insert.length - (edit.to - edit.from);
  }
  return cursor + shift;
}

/** The offsets right after a word (a non-blank followed by a blank, a line break or the end). */
function wordEnds(text: string): number[] {
  const ends: number[] = [];
  for (let at = 1; at <= text.length; at++) {
    if (!/\s/.test(text[at - 1]!) && (at === text.length || /\s/.test(text[at]!))) ends.push(at);
  }
  return ends;
}

/** Each word key by key (" ", "A", "7", "z"), each key at the cursor mapped through what came in between. */
async function typeWords(doc: LiveDocument, random: () => number, words: readonly string[]): Promise<void> {
  let cursor = 0;
  let typing = false;
  doc.on("change", (change) => {
    if (change.origin === "remote") cursor = mapCursor(cursor, change.edits, typing ? -1 : 1);
  });
  for (const word of words) {
    const ends = wordEnds(doc.text);
    cursor = ends[Math.floor(random() * ends.length)] ?? doc.text.length;
    typing = false;
    for (const stroke of ` ${word}`) {
      await delay(Math.floor(random() * 12));
      // As an editor hands over a keystroke: the change itself, at the cursor.
      doc.edit([{ from: cursor, to: cursor, insert: stroke }]);
      cursor += stroke.length;
      typing = true;
    }
  }
}

export async function runWordConvergence(options: WordConvergenceOptions): Promise<WordConvergenceReport> {
  const editors = options.editors ?? 4;
  const wordsPerEditor = options.wordsPerEditor ?? 12;
  const ledger: PatchLedger = { patches: new Map(), overlaps: 0 };
  const faults: Record<string, number> = {};
  const plain = createClient({ baseUrl: options.baseUrls[0]! });
  const first = { title: "Words", content: FIRST_TEXT };
  const { id } = options.key !== undefined ? await createEncryptedDocument(plain, first, options.key) : await plain.createDocument(first);
  // The texts compared at the end are the shown ones: an encrypted document's are decrypted.
  const view = options.key !== undefined ? withDocumentKey(plain, options.key) : plain;

  let faulty = false;
  const docs: LiveDocument[] = [];
  const errors: string[] = [];
  try {
    for (let k = 0; k < editors; k++) {
      const client: FolioClient = createClient({ baseUrl: options.baseUrls[k % options.baseUrls.length]!, fetch: faultyFetch(prng(options.seed + k + 1), faults, ledger, () => faulty) });
      const doc = await openDocument(client, id, { ...SCENARIO_OPTIONS, displayName: `editor ${k}`, ...(options.key !== undefined ? { key: options.key } : {}) });
      doc.on("error", (error) => errors.push(`editor ${k}: ${error.message}`));
      doc.on("conflict", () => errors.push(`editor ${k}: a conflict event, although nobody asked for them`));
      docs.push(doc);
    }
    const typed = docs.map((_, k) => Array.from({ length: wordsPerEditor }, (_, n) => `${String.fromCharCode(65 + k)}${n}z`));
    faulty = true;
    await Promise.all(docs.map((doc, k) => typeWords(doc, prng(options.seed * 7 + k), typed[k]!)));
    faulty = false;
    const text = await converged(view, id, docs, 15_000);

    const head = await checkHistory(plain, options.store, id, ledger.patches);
    if (errors.length > 0) throw new Error(`errors: ${errors.join("; ")}`);
    if (text.split("\n").length !== 3) throw new Error(`the text has ${text.split("\n").length} lines: ${JSON.stringify(text)}`);
    const words = [...typed.flat(), ...FIRST_TEXT.split(/\s+/)];
    const wrong = words.map((word) => ({ word, count: text.split(word).length - 1 })).filter(({ count }) => count !== 1);
    if (wrong.length > 0) throw new Error(`words not exactly once: ${wrong.map(({ word, count }) => `${word} ×${count}`).join(", ")} in ${JSON.stringify(text)}`);
    const whole = new Set(text.split(/\s+/));
    return {
      id,
      versions: head,
      patchesSent: [...ledger.patches.values()].reduce((sum, seqs) => sum + seqs.size, 0),
      faults,
      overlaps: ledger.overlaps,
      words: words.length,
      glued: words.filter((word) => !whole.has(word)).length,
      text,
    };
  } finally {
    docs.forEach((doc) => doc.close());
  }
}
