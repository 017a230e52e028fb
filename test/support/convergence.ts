import { createClient, openDocument, type FolioClient, type LiveDocument, type TextEdit } from "../../src/client/index.js";
import type { Store } from "../../src/storage/store.js";
import { converged } from "./client-harness.js";
import { prng } from "./prng.js";

/**
 * The seeded convergence scenario of the client that asks (`conflicts: "ask"`): five live
 * documents on one document type at random (inserts, deletes and replacements, mostly in the first
 * lines, so that they collide) through fetches that delay, fail before sending, lose answers the
 * service gave, and send requests twice. Conflicts are resolved at random, "theirs" or "mine". At
 * quiescence it checks that every live document holds the service's text, that the history has no
 * gap, that no patch was applied twice, and that no edit was lost except the ones a conflict
 * resolution discarded. (word-convergence.ts runs the default, merging, with words typed into lines.)
 *
 * Every line an editor writes carries a fresh token, typed as an editor types (a line put in, or
 * a line selected and deleted or typed over), so losses are visible (two people typing over one
 * line at once leave both tokens in it, one after the other): a token is gone
 * legitimately only when an editor deleted or replaced its line on purpose, or a conflict
 * resolution dropped it; any other token an editor wrote must be in the final text.
 */

export interface ConvergenceOptions {
  seed: number;
  /** The service roots; live document k talks to baseUrls[k % baseUrls.length]. */
  baseUrls: readonly string[];
  /** The store the service(s) write to, for the history and receipt checks. */
  store: Store;
  editors?: number;
  editsPerEditor?: number;
}

export interface ConvergenceReport {
  versions: number;
  patchesSent: number;
  faults: Record<string, number>;
  conflicts: { theirs: number; mine: number };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The tokens of a text: every line is tokens one after another (two people typing over one line at once leave both there). */
const tokensOf = (text: string) => new Set(text.match(/[^\n]{2}/g) ?? []);
/**
 * Editor k's token n: two characters no other token has, so that no character diff can take one
 * token for an edit of another (which the merge rule would then merge by characters).
 */
const token = (k: number, n: number) => String.fromCharCode(0x4e00 + k * 0x200 + n * 2, 0x4e01 + k * 0x200 + n * 2);

/** What the faulty fetch records: every (clientId, seq) that reached it, and how many patches met a 409. */
export interface PatchLedger {
  patches: Map<string, Set<number>>;
  overlaps: number;
}

interface Ledger extends PatchLedger {
  created: Set<string>;
  /** Tokens an editor removed on purpose (deleted or replaced their line). */
  killed: Set<string>;
  /** Tokens a conflict resolution dropped. */
  discarded: Set<string>;
}

/** A fetch that injects the faults of the scenario, with its decisions drawn from `random`. */
export function faultyFetch(random: () => number, faults: Record<string, number>, ledger: PatchLedger, enabled: () => boolean): typeof fetch {
  return async (input, init) => {
    if (init?.method === "PATCH" && typeof init.body === "string") {
      const body = JSON.parse(init.body) as { clientId: string; seq: number };
      const seqs = ledger.patches.get(body.clientId) ?? new Set<number>();
      seqs.add(body.seq);
      ledger.patches.set(body.clientId, seqs);
    }
    const roll = enabled() ? random() : 1;
    const before = Math.floor(random() * 12);
    const after = Math.floor(random() * 12);
    await delay(before);
    if (roll < 0.08) {
      faults.failBefore = (faults.failBefore ?? 0) + 1;
      throw new TypeError("fetch failed (injected before sending)");
    }
    if (roll < 0.16) {
      faults.loseAnswer = (faults.loseAnswer ?? 0) + 1;
      const response = await globalThis.fetch(input, init);
      await response.arrayBuffer();
      throw new TypeError("fetch failed (answer lost after the service answered)");
    }
    if (roll < 0.24) {
      faults.duplicate = (faults.duplicate ?? 0) + 1;
      const [first, second] = await Promise.allSettled([globalThis.fetch(input, init), globalThis.fetch(input, init)]);
      if (first.status === "fulfilled") await first.value.arrayBuffer().catch(() => undefined);
      if (second.status === "rejected") throw second.reason as Error;
      await delay(after);
      if (init?.method === "PATCH" && second.value.status === 409) ledger.overlaps++;
      return second.value;
    }
    const response = await globalThis.fetch(input, init);
    await delay(after);
    // Counted so that a scenario can tell that its edits did meet.
    if (init?.method === "PATCH" && response.status === 409) ledger.overlaps++;
    return response;
  };
}

/** One local edit on `text`: insert, delete or replace a line, mostly among the first three. */
function edit(doc: LiveDocument, random: () => number, token: string, ledger: Ledger): TextEdit[] {
  // As an editor does it: a line typed in after the end of another, or a line selected and deleted or typed over.
  const text = doc.doc;
  const count = text.lines;
  const index = random() < 0.6 ? Math.floor(random() * Math.min(3, count)) : Math.floor(random() * count);
  const line = text.line(index + 1);
  const kind = random();
  if (kind < 0.4 || count <= 2) {
    ledger.created.add(token);
    return index === 0 ? [{ from: 0, to: 0, insert: `${token}\n` }] : [{ from: text.line(index).to, to: text.line(index).to, insert: `\n${token}` }];
  }
  for (const gone of tokensOf(line.text)) ledger.killed.add(gone);
  if (kind < 0.7) return index + 1 < count ? [{ from: line.from, to: line.to + 1, insert: "" }] : [{ from: text.line(index).to, to: line.to, insert: "" }];
  ledger.created.add(token);
  return [{ from: line.from, to: line.to, insert: token }];
}

export async function runConvergence(options: ConvergenceOptions): Promise<ConvergenceReport> {
  const editors = options.editors ?? 5;
  const editsPerEditor = options.editsPerEditor ?? 60;
  const ledger: Ledger = { created: new Set(), killed: new Set(), discarded: new Set(), patches: new Map(), overlaps: 0 };
  const faults: Record<string, number> = {};
  const conflicts = { theirs: 0, mine: 0 };
  const plain = createClient({ baseUrl: options.baseUrls[0]! });
  const initial = Array.from({ length: 6 }, (_, n) => token(9, n));
  initial.forEach((token) => ledger.created.add(token));
  const { id } = await plain.createDocument({ title: "Convergence", content: initial.join("\n") });

  let faulty = false;
  const docs: LiveDocument[] = [];
  try {
    for (let k = 0; k < editors; k++) {
      const client: FolioClient = createClient({ baseUrl: options.baseUrls[k % options.baseUrls.length]!, fetch: faultyFetch(prng(options.seed + k + 1), faults, ledger, () => faulty) });
      const doc = await openDocument(client, id, { ...SCENARIO_OPTIONS, conflicts: "ask", displayName: `editor ${k}` });
      const choices = prng(options.seed * 31 + k);
      doc.on("conflict", (conflict) => {
        setTimeout(() => {
          const choice = choices() < 0.5 ? "theirs" : "mine";
          conflicts[choice]++;
          // "theirs" drops the local lines the service's text lacks; "mine" (the service's text with
          // the local edits over it) drops only the contested lines of theirs.
          const theirs = tokensOf(conflict.theirs);
          const [kept, dropped] = choice === "theirs" ? [theirs, tokensOf(doc.text)] : [tokensOf(conflict.mine), theirs];
          for (const token of dropped) if (!kept.has(token)) ledger.discarded.add(token);
          conflict.resolve(choice);
        }, Math.floor(choices() * 10));
      });
      docs.push(doc);
    }
    faulty = true;

    await Promise.all(
      docs.map(async (doc, k) => {
        const steps = prng(options.seed * 7 + k);
        for (let n = 0; n < editsPerEditor; n++) {
          await delay(Math.floor(steps() * 40));
          if (doc.status === "conflict") continue;
          doc.edit(edit(doc, steps, token(k, n), ledger));
        }
      }),
    );
    faulty = false;
    const text = await converged(plain, id, docs, 15_000);

    const head = await checkHistory(plain, options.store, id, ledger.patches);
    // No edit lost but by a conflict resolution.
    const final = tokensOf(text);
    const lost = [...ledger.created].filter((token) => !ledger.killed.has(token) && !ledger.discarded.has(token) && !final.has(token));
    if (lost.length > 0) throw new Error(`edits lost: ${lost.join(", ")} in ${JSON.stringify(text)}`);
    const strange = [...final].filter((token) => !ledger.created.has(token));
    if (strange.length > 0 || text.split("\n").some((line) => line.length % 2 !== 0)) throw new Error(`text nobody wrote: ${strange.join(", ")} in ${JSON.stringify(text)}`);

    return { versions: head, patchesSent: [...ledger.patches.values()].reduce((sum, seqs) => sum + seqs.size, 0), faults, conflicts };
  } finally {
    docs.forEach((doc) => doc.close());
  }
}

/** Short polls and retries, so that a scenario's faults cost milliseconds. */
export const SCENARIO_OPTIONS = { waitSeconds: 2, retry: { initialMs: 5, maxMs: 80 }, requestTimeoutMs: 3_000 } as const;

/**
 * Checks the history of a scenario's document at quiescence: versions 1 … head without a gap, and
 * no patch applied twice (every version a client wrote is the receipt of exactly one of its
 * patches, given every (clientId, seq) that reached the fetch). Returns the head version.
 */
export async function checkHistory(plain: FolioClient, store: Store, id: string, patches: ReadonlyMap<string, ReadonlySet<number>>): Promise<number> {
  // The history: versions 1 … head, no gap.
  const head = (await plain.getDocument(id)).version;
  const versions = await store.reads(id).versions(0, head);
  if (versions.map((record) => record.version).join() !== Array.from({ length: head }, (_, k) => k + 1).join()) {
    throw new Error(`the history has gaps: ${versions.map((record) => record.version).join()}`);
  }
  // No patch applied twice: every version a client wrote is the receipt of exactly one of its patches.
  for (const [clientId, seqs] of patches) {
    const written = versions.filter((record) => record.clientId === clientId).map((record) => record.version);
    const receipted = new Set<number>();
    for (const seq of seqs) {
      const receipt = await store.reads(id).receipt(clientId, seq);
      const record = receipt && versions[receipt.version - 1];
      if (receipt && record?.clientId === clientId) {
        if (receipted.has(receipt.version)) throw new Error(`two patches of ${clientId} name version ${receipt.version}`);
        receipted.add(receipt.version);
      }
    }
    if (written.join() !== [...receipted].sort((a, b) => a - b).join()) {
      throw new Error(`client ${clientId} wrote versions ${written.join()} but its receipts name ${[...receipted].join()}: a patch was applied twice or lost`);
    }
  }
  return head;
}

/**
 * Runs a seeded scenario with FOLIO_SEED or a random seed, naming the seed when it fails;
 * FOLIO_CONVERGENCE_RUNS=n repeats it with n seeds in a row (a soak; give it a longer timeout).
 */
export async function seeded(run: (seed: number) => Promise<void>): Promise<void> {
  const runs = Math.max(1, Number(process.env.FOLIO_CONVERGENCE_RUNS ?? 1));
  for (let round = 0; round < runs; round++) {
    const seed = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : Math.floor(Math.random() * 2 ** 31);
    try {
      await run(seed);
    } catch (error) {
      throw new Error(`convergence failed with FOLIO_SEED=${seed}: ${(error as Error).message}`, { cause: error });
    }
  }
}
