import { createDocument } from "../support/http-expect.js";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { DOCUMENTS, applyWireOps, checksumOf, replace, type PatchBody, type WireOp } from "../support/content-patch.js";

const CLIENTS = 20;
const EDITS = 5;
const MAX_ATTEMPTS_PER_EDIT = 50;
const REQUEST_TIMEOUT_MS = 5_000;

let t: TestApp;
let agent: Agent;
let origin: string;

beforeEach(async () => {
  t = await buildTestApp();
  origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
  agent = new Agent({ connections: CLIENTS * 2, keepAliveTimeout: 10_000 });
});

afterEach(async () => {
  await agent.close();
  await t.close();
});

interface Answer {
  status: number;
  body: unknown;
}

async function send(method: "GET" | "PATCH", path: string, body?: unknown): Promise<Answer> {
  const response = await request(`${origin}${path}`, {
    method,
    dispatcher: agent,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

/** What the clients saw, for the assertions at the end. */
interface Tally {
  /** `clientId/seq` → the version its accepted patch created. */
  accepted: Map<string, number>;
  resends: number;
  /** Accepted answers to a stale base, which carried foreign ops. */
  rebased: number;
  conflicts: number;
  reloads: number;
}

/**
 * One editor client: it owns line `k`, keeps the text and version it last knew, and sets its line
 * to "client k edit n" for n = 1..EDITS. On 200 it applies the foreign ops and its own change to its
 * text, as a real client does; on 409 or 422 it reloads and retries (bounded). Every third request
 * "loses" its answer and sends the identical body again, which must get the same answer; for every
 * other client (alternating) the resend goes out while the lost request is still in flight.
 */
class LineClient {
  private seq = 0;
  private requests = 0;

  constructor(
    private readonly id: string,
    private readonly k: number,
    private lines: string[],
    private version: number,
    private readonly tally: Tally,
  ) {}

  get clientId(): string {
    return `client-${this.k}`;
  }

  async run(): Promise<void> {
    for (let n = 1; n <= EDITS; n++) await this.edit(`client ${this.k} edit ${n}`);
  }

  private async edit(line: string): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS_PER_EDIT; attempt++) {
      this.seq += 1;
      const own: WireOp = replace(this.k, 1, line);
      const body: PatchBody = { baseVersion: this.version, checksum: checksumOf(this.lines.join("\n")), clientId: this.clientId, seq: this.seq, ops: [own] };
      const answer = await this.patch(body);
      if (answer.status === 200) {
        const result = answer.body as { version: number; opsSinceBase: WireOp[] };
        // Every client replaces one line by one line, so no index ever shifts: the own op applies as sent.
        this.lines = applyWireOps(applyWireOps(this.lines, result.opsSinceBase), [own]);
        this.version = result.version;
        if (result.opsSinceBase.length > 0) this.tally.rebased += 1;
        this.tally.accepted.set(`${this.clientId}/${this.seq}`, result.version);
        return;
      }
      if (answer.status === 409) this.tally.conflicts += 1;
      else if (answer.status === 422) this.tally.reloads += 1;
      else throw new Error(`${this.clientId} seq ${this.seq}: unexpected ${answer.status} ${JSON.stringify(answer.body)}`);
      await this.reload();
    }
    throw new Error(`${this.clientId} gave up on "${line}" after ${MAX_ATTEMPTS_PER_EDIT} attempts`);
  }

  private async patch(body: PatchBody): Promise<Answer> {
    this.requests += 1;
    const path = `${DOCUMENTS}/${this.id}/content`;
    if (this.requests % 3 !== 0) return send("PATCH", path, body);
    this.tally.resends += 1;
    let lost: Answer;
    let resent: Answer;
    if ((this.requests / 3 + this.k) % 2 === 0) {
      [lost, resent] = await Promise.all([send("PATCH", path, body), send("PATCH", path, body)]);
    } else {
      lost = await send("PATCH", path, body);
      resent = await send("PATCH", path, body);
    }
    expect(resent, `${this.clientId} seq ${body.seq}: a resend gets the answer of the lost request`).toEqual(lost);
    return resent;
  }

  private async reload(): Promise<void> {
    const answer = await send("GET", `${DOCUMENTS}/${this.id}`);
    expect(answer.status).toBe(200);
    const document = answer.body as { content: string; version: number };
    this.lines = document.content.split("\n");
    this.version = document.version;
  }
}

describe("PATCH /documents/{documentId}/content under concurrent clients over real HTTP", () => {
  it(
    "lets 20 clients edit disjoint lines concurrently, resending lost answers, with every final edit once and dense versions",
    async () => {
      const initial = Array.from({ length: CLIENTS }, (_, k) => `line ${k}`);
      const id = (await createDocument(t.app, { title: "Notes", content: initial.join("\n") })).id;
      const tally: Tally = { accepted: new Map(), resends: 0, rebased: 0, conflicts: 0, reloads: 0 };

      await Promise.all(initial.map((_, k) => new LineClient(id, k, [...initial], 1, tally).run()));

      const final = await send("GET", `${DOCUMENTS}/${id}`);
      const document = final.body as { content: string; version: number };
      expect(final.status).toBe(200);
      expect(document.content.split("\n")).toEqual(initial.map((_, k) => `client ${k} edit ${EDITS}`));

      // Disjoint lines never truly overlap, and a client that applies opsSinceBase always knows its base's text.
      expect({ conflicts: tally.conflicts, reloads: tally.reloads }).toEqual({ conflicts: 0, reloads: 0 });
      // The run really raced: resends happened, and every first edit but one was based on a stale version 1.
      expect(tally.resends).toBeGreaterThanOrEqual(CLIENTS);
      expect(tally.rebased).toBeGreaterThanOrEqual(CLIENTS - 1);

      // One version per accepted distinct patch: resends added none.
      const accepted = [...tally.accepted.values()].sort((a, b) => a - b);
      expect(accepted).toHaveLength(CLIENTS * EDITS);
      expect(accepted).toEqual(Array.from({ length: CLIENTS * EDITS }, (_, k) => k + 2));
      expect(document.version).toBe(1 + CLIENTS * EDITS);

      const versions = await t.store.reads(id).versions(0, document.version);
      expect(versions.map((record) => record.version)).toEqual(Array.from({ length: document.version }, (_, k) => k + 1));
      expect(versions.slice(1).every((record) => record.changeType === "UPDATED" && record.ops?.length === 1)).toBe(true);
    },
    // The whole run is bounded well under 20 s; it takes about a second (a few on PostgreSQL).
    12_000,
  );
});
