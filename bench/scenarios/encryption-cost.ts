import { createClient, createEncryptedDocument, generateDocumentKey, openDocument, type LiveDocument } from "../../src/client/index.js";
import { beginResult, checkDeadline, type BenchContext, type Scenario } from "../lib/context.js";
import { startService, type ServiceUnderTest } from "../lib/service.js";
import { figure, median } from "../lib/stats.js";

const ID = "encryption-cost";
const TITLE = "Encryption cost: a keystroke in a 2,000-line document, encrypted and plain";
const LINES = 2_000;

/** A 2,000-line outline of about 40 characters a line (82 KB), the same text for both documents. */
function text(): string {
  return Array.from({ length: LINES }, (_, k) => `${"  ".repeat(k % 4)}- item ${k}: ${"lorem ipsum dolor sit amet".slice(0, 10 + (k % 17))}`).join("\n");
}

interface Run {
  /** Bytes of PATCH request bodies per keystroke (the JSON as sent). */
  patchBytes: number;
  /** This process's CPU time (user + system) per keystroke: the client's whole work (edit, diff, encryption, HTTP, answer, feed). */
  cpuUs: number;
  /** Wall time per keystroke until synced. */
  wallMs: number;
}

/** Counts the bytes of the PATCH bodies a live document sends. */
function countingFetch(counter: { bytes: number; patches: number }): typeof fetch {
  return (input, init) => {
    if (init?.method === "PATCH" && typeof init.body === "string") {
      counter.bytes += Buffer.byteLength(init.body);
      counter.patches++;
    }
    return globalThis.fetch(input, init);
  };
}

/** `keys` keystrokes, each one character at the end of a line spread over the document, each awaited until synced. */
async function type(doc: LiveDocument, keys: number, counter: { bytes: number; patches: number }, from: number): Promise<Run> {
  counter.bytes = 0;
  counter.patches = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let k = 0; k < keys; k++) {
    const lines = doc.text.split("\n");
    const at = ((from + k) * 97) % LINES;
    lines[at] += "x";
    doc.setText(lines.join("\n"));
    await doc.whenSynced(10_000);
  }
  const used = process.cpuUsage(cpu);
  if (counter.patches !== keys) throw new Error(`${counter.patches} patches for ${keys} keystrokes`);
  return { patchBytes: counter.bytes / keys, cpuUs: (used.user + used.system) / keys, wallMs: (performance.now() - started) / keys };
}

async function measure(context: BenchContext) {
  const { result, finish } = beginResult(ID, TITLE, context.backend);
  const timing = context.quick ? { runs: 3, keys: 40 } : { runs: 7, keys: 150 };
  let server: ServiceUnderTest | undefined;
  const docs: LiveDocument[] = [];
  try {
    server = await startService({ build: context.build, backend: context.backend, tmp: context.tmp, ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}) });
    const counters = { plain: { bytes: 0, patches: 0 }, encrypted: { bytes: 0, patches: 0 } };
    const setup = createClient({ baseUrl: server.origin });
    const key = generateDocumentKey();
    const plainId = (await setup.createDocument({ title: "Plain", content: text() })).id;
    const encryptedId = (await createEncryptedDocument(setup, { title: "Encrypted", content: text() }, key)).id;
    const options = { waitSeconds: 25 } as const;
    const plain = await openDocument(createClient({ baseUrl: server.origin, fetch: countingFetch(counters.plain) }), plainId, options);
    docs.push(plain);
    const encrypted = await openDocument(createClient({ baseUrl: server.origin, fetch: countingFetch(counters.encrypted) }), encryptedId, { ...options, key });
    docs.push(encrypted);
    // Warm-up: the JIT, the service's caches and the documents' first patches.
    await type(plain, 20, counters.plain, 0);
    await type(encrypted, 20, counters.encrypted, 0);
    const runs: Record<"plain" | "encrypted", Run[]> = { plain: [], encrypted: [] };
    for (let run = 0; run < timing.runs; run++) {
      checkDeadline(context, ID);
      const order = run % 2 === 0 ? (["plain", "encrypted"] as const) : (["encrypted", "plain"] as const);
      for (const kind of order) runs[kind].push(await type(kind === "plain" ? plain : encrypted, timing.keys, counters[kind], 1 + run * timing.keys));
    }
    for (const kind of ["plain", "encrypted"] as const) {
      result.rows.push({ label: `${kind}: PATCH body per keystroke`, figure: figure(runs[kind].map((r) => r.patchBytes), "B") });
      result.rows.push({ label: `${kind}: client CPU per keystroke`, figure: figure(runs[kind].map((r) => r.cpuUs), "µs") });
      result.rows.push({ label: `${kind}: wall time per keystroke (until synced)`, figure: figure(runs[kind].map((r) => r.wallMs), "ms") });
    }
    const ratios = (of: (r: Run) => number) => runs.plain.map((r, i) => of(runs.encrypted[i]!) / of(r));
    result.rows.push({ label: "encrypted / plain: PATCH body (paired runs)", figure: figure(ratios((r) => r.patchBytes), "×") });
    result.rows.push({ label: "encrypted / plain: client CPU (paired runs)", figure: figure(ratios((r) => r.cpuUs), "×") });
    result.method.push(
      `One service process; this process runs two live documents of the client library, one plain and one encrypted (docs/encryption.md), each holding the same ${LINES}-line text of about 40 characters a line (${Math.round(text().length / 1000)} KB plain).`,
      `${timing.runs} runs of ${timing.keys} keystrokes per document, plain and encrypted alternating which goes first; a keystroke appends one character to a line (a different line each time) and waits until the document is synced, so every keystroke is one PATCH. 20 keystrokes each of warm-up first.`,
      "Patch size: the bytes of the PATCH request bodies as sent. Client CPU: this process's user + system CPU time (process.cpuUsage) over the run, divided by the keystrokes: the client's whole work per keystroke (diffing the text, encrypting the changed line, JSON, HTTP, rebuilding and decrypting the answer, the feed's answer). The ratios pair the two documents of the same run.",
    );
    result.notes.push(`Paired ratios of the PATCH body: ${ratios((r) => r.patchBytes).map((v) => v.toFixed(2)).join(", ")}; of the client CPU: ${ratios((r) => r.cpuUs).map((v) => v.toFixed(2)).join(", ")}.`);
    result.notes.push(`Medians: PATCH body ${median(runs.plain.map((r) => r.patchBytes)).toFixed(0)} B plain, ${median(runs.encrypted.map((r) => r.patchBytes)).toFixed(0)} B encrypted; client CPU ${median(runs.plain.map((r) => r.cpuUs)).toFixed(0)} µs plain, ${median(runs.encrypted.map((r) => r.cpuUs)).toFixed(0)} µs encrypted.`);
  } finally {
    docs.forEach((doc) => doc.close());
    await server?.close().catch(() => undefined);
  }
  return finish();
}

export const encryptionCost: Scenario = {
  id: ID,
  title: TITLE,
  budgetS: { full: 90, quick: 40 },
  run: measure,
};
