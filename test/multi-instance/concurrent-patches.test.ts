import { afterEach, beforeEach, expect, it } from "vitest";
import type { LineOperation } from "../../src/core/line-operation.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { checksum, type DocumentJson, type HistoryEntryJson } from "../support/http-expect.js";
import { describePostgres } from "../support/postgres.js";
import { buildTestApp } from "../support/test-app.js";
import { Cluster, DOCUMENTS, type Answer, type Instance } from "./instances.js";

// Issue 6: 20 clients split over two instances patch one document concurrently, with conflicts,
// retries and resent requests; the outcome must be exactly what one instance gives for the same
// accepted edits: nothing lost, nothing applied twice, versions dense.

const CLIENTS = 20;
const EDITS = 4;
/** Per edit; a client that needs more is stuck, and the test says so. */
const MAX_ATTEMPTS = 40;

/** Client k owns line k + 1; line 0 is a header that every client's first edit also rewrites. */
const INITIAL = ["header", ...Array.from({ length: CLIENTS }, (_, k) => `line ${k}`)].join("\n");
const ownLine = (client: number) => client + 1;
const editText = (client: number, edit: number) => `client ${client} edit ${edit}`;
const headerText = (client: number) => `header by client ${client}`;

/** One intended edit: set the client's own line (and, while it still wants to, the header). */
interface Edit {
  client: number;
  edit: number;
  header: boolean;
}

interface Accepted extends Edit {
  seq: number;
  version: number;
}

function opsOf(edit: Edit): LineOperation[] {
  const ops: LineOperation[] = [];
  if (edit.header) ops.push({ op: "replace", index: 0, count: 1, lines: [headerText(edit.client)] });
  ops.push({ op: "replace", index: ownLine(edit.client), count: 1, lines: [editText(edit.client, edit.edit)] });
  return ops;
}

function patchBody(edit: Edit, seq: number, base: { version: number; content: string }) {
  return {
    baseVersion: base.version,
    checksum: checksum(base.content),
    clientId: `client-${edit.client}`,
    seq,
    displayName: `Client ${edit.client}`,
    ops: opsOf(edit),
  };
}

const withoutDocumentId = <T extends { documentId: string }>(records: T[]) => records.map(({ documentId: _, ...rest }) => rest);

let cluster: Cluster;

describePostgres("two instances on one PostgreSQL schema: concurrent patches", () => {
  beforeEach(async () => {
    cluster = await Cluster.start(2);
  });

  afterEach(async () => {
    await cluster?.close();
  });

  async function getDocument(instance: Instance, id: string): Promise<DocumentJson> {
    const answer = await cluster.request(instance, "GET", `${DOCUMENTS}/${id}`);
    expect(answer.status).toBe(200);
    return answer.body as DocumentJson;
  }

  const patch = (instance: Instance, id: string, body: unknown): Promise<Answer> =>
    cluster.request(instance, "PATCH", `${DOCUMENTS}/${id}/content`, { body });
  const outcome = (answer: Answer) => ({ status: answer.status, body: answer.body });

  it(
    "gives the text and history one instance gives when 20 clients split over both patch one document with conflicts, retries and resends",
    async () => {
      const { a, b } = cluster;
      const created = await cluster.request(a, "POST", DOCUMENTS, { body: { title: "Shared", content: INITIAL } });
      expect(created.status).toBe(201);
      const id = (created.body as DocumentJson).id;

      const accepted: Accepted[] = [];
      const resent: [Answer, Answer][] = [];
      const duplicated: [Answer, Answer][] = [];
      const tally = { conflicts: 0, unprocessable: 0 };

      // Every client reads version 1 before anybody writes, so that all first edits race on it.
      const homes = Array.from({ length: CLIENTS }, (_, k) => (k % 2 === 0 ? a : b));
      const starts = await Promise.all(homes.map((home) => getDocument(home, id)));

      async function runClient(client: number): Promise<void> {
        const home = homes[client]!;
        const other = home === a ? b : a;
        let seq = 0;
        let base: { version: number; content: string } = starts[client]!;
        for (let edit = 1; edit <= EDITS; edit++) {
          if (edit > 1) base = await getDocument(home, id);
          let header = edit === 1;
          for (let attempt = 1; ; attempt++) {
            if (attempt > MAX_ATTEMPTS) throw new Error(`client ${client} gave up on edit ${edit} after ${MAX_ATTEMPTS} attempts`);
            seq++;
            const body = patchBody({ client, edit, header }, seq, base);
            let answer: Answer;
            if (edit === 2 && client % 3 === 0) {
              // The answer got lost on the way back: the client sends the same request again,
              // and the load balancer routes it to the other instance.
              const lost = await patch(home, id, body);
              answer = await patch(other, id, body);
              resent.push([lost, answer]);
            } else if (edit === 3 && client % 3 === 1) {
              // A retry that overtakes the first attempt: both are in flight at once, one per instance.
              const [first, second] = await Promise.all([patch(home, id, body), patch(other, id, body)]);
              duplicated.push([first, second]);
              answer = first;
            } else {
              answer = await patch(home, id, body);
            }
            if (answer.status === 200) {
              accepted.push({ client, edit, header, seq, version: (answer.body as { version: number }).version });
              break;
            }
            if (answer.status !== 409 && answer.status !== 422) {
              throw new Error(`client ${client}: unexpected ${answer.status} ${JSON.stringify(answer.body)}`);
            }
            // 409: another client's header won; this client takes it and keeps only its own line.
            // 422: its base is gone. Either way: reload and rebuild the patch.
            if (answer.status === 409) {
              tally.conflicts++;
              header = false;
            } else {
              tally.unprocessable++;
            }
            base = await getDocument(home, id);
          }
        }
      }

      await Promise.all(Array.from({ length: CLIENTS }, (_, client) => runClient(client)));

      // Exactly one first edit wins the header; the 19 others conflict once and then go through.
      expect(tally).toEqual({ conflicts: CLIENTS - 1, unprocessable: 0 });
      const head = 1 + CLIENTS * EDITS;
      expect(accepted.map((entry) => entry.version).sort((x, y) => x - y)).toEqual(Array.from({ length: head - 1 }, (_, i) => i + 2));
      expect(resent.map(([lost, again]) => [lost.status, again.status])).toEqual(resent.map(() => [200, 200]));
      for (const [lost, again] of resent) expect(outcome(again)).toEqual(outcome(lost));
      expect(duplicated.map(([first, second]) => [first.status, second.status])).toEqual(duplicated.map(() => [200, 200]));
      for (const [first, second] of duplicated) expect(outcome(second)).toEqual(outcome(first));
      expect(resent.length).toBeGreaterThan(0);
      expect(duplicated.length).toBeGreaterThan(0);

      // Every client's last edit exactly once, the header of whoever committed first.
      const ordered = [...accepted].sort((x, y) => x.version - y.version);
      const winner = ordered[0]!;
      expect(winner.header).toBe(true);
      const finalText = [headerText(winner.client), ...Array.from({ length: CLIENTS }, (_, k) => editText(k, EDITS))].join("\n");
      for (const instance of [a, b]) {
        expect(await getDocument(instance, id)).toMatchObject({ version: head, content: finalText });
      }

      // Versions dense 1..head, one per accepted edit, each recorded once with its sender.
      const versions = await a.store.getVersions(id, 0, head + 10);
      expect(versions.map((record) => record.version)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
      expect(versions.slice(1).map((record) => record.clientId)).toEqual(ordered.map((entry) => `client-${entry.client}`));
      expect(await b.store.getVersions(id, 0, head)).toEqual(versions);

      // One instance given the same accepted edits in the same order gives the same versions,
      // text and history.
      const single = await buildTestApp({ store: SqliteStore.open(":memory:"), clock: cluster.clock });
      try {
        const replayCreated = await single.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "Shared", content: INITIAL } });
        expect(replayCreated.statusCode).toBe(201);
        const replayId = replayCreated.json<DocumentJson>().id;
        let current = { version: 1, content: INITIAL };
        for (const entry of ordered) {
          const response = await single.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${replayId}/content`, payload: patchBody(entry, entry.seq, current) });
          const read = await single.app.inject({ method: "GET", url: `${DOCUMENTS}/${replayId}` });
          current = read.json<DocumentJson>();
          expect({ status: response.statusCode, body: response.json<unknown>() }).toEqual({
            status: 200,
            body: { version: entry.version, opsSinceBase: [], checksum: checksum(current.content) },
          });
        }
        expect(current.content).toBe(finalText);
        expect(withoutDocumentId(await single.store.getVersions(replayId, 0, head))).toEqual(withoutDocumentId(versions));

        const histories = await Promise.all([a, b].map((instance) => cluster.request(instance, "GET", `${DOCUMENTS}/${id}/history`)));
        expect(histories.map((answer) => answer.status)).toEqual([200, 200]);
        expect(histories[1]!.body).toEqual(histories[0]!.body);
        const replayHistory = await single.app.inject({ method: "GET", url: `${DOCUMENTS}/${replayId}/history` });
        expect(withoutDocumentId(histories[0]!.body as HistoryEntryJson[])).toEqual(withoutDocumentId(replayHistory.json<HistoryEntryJson[]>()));
        expect((histories[0]!.body as HistoryEntryJson[]).map((entry) => [entry.version, entry.changeType])).toEqual([
          [1, "CREATED"],
          [head, "UPDATED"],
        ]);
      } finally {
        await single.close();
      }
    },
    60_000,
  );
});
