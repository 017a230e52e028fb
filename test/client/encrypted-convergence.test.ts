import { expect, it } from "vitest";
import { generateDocumentKey } from "../../src/client/index.js";
import { servedAppPerTest } from "../support/app-per-test.js";
import { seeded } from "../support/convergence.js";
import { FIRST_TEXT, runWordConvergence } from "../support/word-convergence.js";

// Encrypted documents through the service's rebase (docs/encryption.md): three live documents type
// words at once into one encrypted document; the service rebases and merges ciphertext lines only.
// FOLIO_SEED replays a run.

const s = servedAppPerTest();

it("converges three live encrypted documents typing at once through a faulty network, and the service never holds a plain word", { timeout: 40_000 }, async () => {
  await seeded(async (seed) => {
    const report = await runWordConvergence({ seed, baseUrls: [s.baseUrl], store: s.t.store, editors: 3, wordsPerEditor: 8, key: generateDocumentKey() });
    if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
    // Every character typed and of the first text is in the converged (decrypted) text as often as typed.
    expect(report.words).toBe(3 * 8 + 6);
    // Not vacuous: the patches met (409s, merged in plain text, re-encrypted, sent again).
    expect(report.overlaps).toBeGreaterThanOrEqual(1);

    // What the service serves, read with plain HTTP (the head, the history, the feed's ops since
    // version 1), and what it stores for every version (title, ops, kept text).
    // Short words can turn up by chance in base64url ciphertext ("A5z" does about once in 262,144
    // places); a space never does: each line of the first text, and each typed word with the blank
    // typed before it, must not be there.
    const words = [...FIRST_TEXT.split("\n"), "Announce", ...Array.from({ length: 3 * 8 }, (_, n) => ` ${String.fromCharCode(65 + (n % 3))}${Math.floor(n / 3)}z`)];
    const answers = await Promise.all(["", "/history", "/changes?since=1"].map((path) => fetch(`${s.baseUrl}/api/v1/documents/${report.id}${path}`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const served = await Promise.all(answers.map((answer) => answer.text()));
    const records = await Promise.all(Array.from({ length: report.versions }, (_, k) => s.t.store.reads(report.id).version(k + 1)));
    expect(records.filter((record) => record !== undefined)).toHaveLength(report.versions);
    const seen = served.join("\n") + JSON.stringify(records);
    expect(words.filter((word) => seen.includes(word))).toEqual([]);
    const stored = [JSON.parse(served[0]!) as { title: string; content: string }];
    expect(stored[0]!.title).toMatch(/^e1\.[A-Za-z0-9_.-]{251}$/);
    // One ciphertext line per plain line, in every version.
    expect(stored[0]!.content.split("\n")).toHaveLength(report.text.split("\n").length);
  });
});
