import { ChangeSet } from "@codemirror/state";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FolioError } from "../../src/client/index.js";
import { PLAIN_CODEC } from "../../src/client/line-codec.js";
import { initialState, nextStep, quiet, statusOf, transition, withSync, type LiveEvent, type LiveState, type PatchSettlement, type Phase, type Work } from "../../src/client/live-state.js";
import { serviceTextOf } from "../../src/client/service-text.js";
import { edited, nextPatch, sent, startSync } from "../../src/client/sync-text.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { latch } from "../support/client-fetch.js";
import { converged } from "../support/client-harness.js";
import { waitUntil } from "../support/wait-until.js";

// The live document's state machine (src/client/live-state.ts) as pure functions: one test per
// transition of its tables, the events each phase ignores, and the worker's order of steps; then
// the transitions no other suite walks through, on a real live document against the real service.

const QUIET = startSync(serviceTextOf(PLAIN_CODEC, 1, "a"));
const TYPED = edited(QUIET, ChangeSet.of([{ from: 1, insert: "\nb" }], 1));
const INFLIGHT = sent(TYPED, nextPatch(TYPED, PLAIN_CODEC, { checksum: "sha256:00", clientId: "client", seq: 1, displayName: undefined, milestone: false }));
const ACCEPTED: PatchSettlement = { answer: { status: 200, result: { version: 2, checksum: "c2", opsSinceBase: [] } } };
const FAILED: PatchSettlement = { error: new Error("422") };

const IDLE = initialState(QUIET, 1);
const at = (phase: Phase, facts: Partial<Omit<LiveState, "phase">> = {}): LiveState => ({ ...IDLE, ...facts, phase });
const PHASES: Record<Phase["kind"], Phase> = {
  resend: { kind: "resend" },
  idle: { kind: "idle" },
  parked: { kind: "parked" },
  sending: { kind: "sending" },
  answered: { kind: "answered", outcome: ACCEPTED },
  closed: { kind: "closed" },
};

describe("the states a live document opens in", () => {
  it("is idle with nothing kept, and resends a patch kept in flight", () => {
    expect(initialState(QUIET, 1)).toEqual({
      phase: { kind: "idle" },
      sync: QUIET,
      nextSeq: 1,
      eventsSeen: 1,
      announced: 1,
      reloadDue: false,
      deleted: false,
      keyLost: false,
      unprocessable: 0,
      failing: { patch: false, feed: false },
    });
    expect(initialState(INFLIGHT, 2).phase).toEqual({ kind: "resend" });
  });
});

describe("the transitions of the phase", () => {
  it("sent: idle → sending with the seq used, and resend → sending with the kept patch's", () => {
    expect(transition(at(PHASES.idle), { type: "sent" })).toEqual(at({ kind: "sending" }, { nextSeq: 2 }));
    expect(transition(at(PHASES.resend), { type: "sent" })).toEqual(at({ kind: "sending" }));
  });

  it("answered: sending → answered with the outcome", () => {
    expect(transition(at(PHASES.sending), { type: "answered", outcome: FAILED })).toEqual(at({ kind: "answered", outcome: FAILED }));
  });

  it("taken: answered → idle; an answer ends a run of 422s, an error does not", () => {
    expect(transition(at(PHASES.answered, { unprocessable: 2 }), { type: "taken" })).toEqual(at({ kind: "idle" }, { unprocessable: 0 }));
    const failed = at({ kind: "answered", outcome: FAILED }, { unprocessable: 2 });
    expect(transition(failed, { type: "taken" })).toEqual(at({ kind: "idle" }, { unprocessable: 2 }));
  });

  it("refused with 400, 413 or without a status: idle → parked", () => {
    for (const status of [400, 413, 0]) expect(transition(at(PHASES.idle), { type: "refused", status })).toEqual(at({ kind: "parked" }));
  });

  it("edited: parked → idle", () => {
    expect(transition(at(PHASES.parked), { type: "edited" })).toEqual(at({ kind: "idle" }));
  });

  it("closed: every phase → closed, the facts kept", () => {
    for (const phase of Object.values(PHASES)) {
      expect(transition(at(phase, { deleted: true, unprocessable: 1 }), { type: "closed" })).toEqual(at({ kind: "closed" }, { deleted: true, unprocessable: 1 }));
    }
  });
});

describe("the transitions of the facts beside the phase", () => {
  it("refused 422 counts one more 422 in a row; refused 404 marks the document deleted; refused 409 changes nothing", () => {
    expect(transition(at(PHASES.idle, { unprocessable: 1 }), { type: "refused", status: 422 })).toEqual(at(PHASES.idle, { unprocessable: 2 }));
    expect(transition(at(PHASES.idle), { type: "refused", status: 404 })).toEqual(at(PHASES.idle, { deleted: true }));
    expect(transition(at(PHASES.idle), { type: "refused", status: 409 })).toEqual(at(PHASES.idle));
  });

  it("reload-wanted sets reloadDue, in any phase (a patch in flight included); reloading clears it", () => {
    expect(transition(at(PHASES.idle), { type: "reload-wanted" })).toEqual(at(PHASES.idle, { reloadDue: true }));
    expect(transition(at(PHASES.sending), { type: "reload-wanted" })).toEqual(at(PHASES.sending, { reloadDue: true }));
    expect(transition(at(PHASES.parked, { reloadDue: true }), { type: "reloading" })).toEqual(at(PHASES.parked));
  });

  it("deleted marks the document read-only, restored ends it; a parked edit stays parked", () => {
    expect(transition(at(PHASES.parked), { type: "deleted" })).toEqual(at(PHASES.parked, { deleted: true }));
    expect(transition(at(PHASES.parked, { deleted: true }), { type: "restored" })).toEqual(at(PHASES.parked));
  });

  it("key-lost stops an encrypted document for good", () => {
    expect(transition(at(PHASES.sending), { type: "key-lost" })).toEqual(at(PHASES.sending, { keyLost: true }));
  });

  it("seen and announced only grow", () => {
    const seen = transition(transition(at(PHASES.idle), { type: "seen", version: 5 }), { type: "seen", version: 3 });
    expect(seen.eventsSeen).toBe(5);
    expect(transition(transition(seen, { type: "announced", version: 7 }), { type: "announced", version: 6 }).announced).toBe(7);
  });

  it("failing sets and clears the failing of the patch's and the feed's requests apart", () => {
    const patchFailing = transition(at(PHASES.sending), { type: "failing", loop: "patch", failing: true });
    expect(patchFailing).toEqual(at(PHASES.sending, { failing: { patch: true, feed: false } }));
    const both = transition(patchFailing, { type: "failing", loop: "feed", failing: true });
    expect(both.failing).toEqual({ patch: true, feed: true });
    expect(transition(both, { type: "failing", loop: "patch", failing: false }).failing).toEqual({ patch: false, feed: true });
  });
});

describe("the events a phase does not list", () => {
  const phaseEvents: LiveEvent[] = [{ type: "sent" }, { type: "answered", outcome: FAILED }, { type: "taken" }, { type: "refused", status: 400 }, { type: "edited" }];
  const listed: Record<Phase["kind"], Array<LiveEvent["type"]>> = {
    resend: ["sent"],
    idle: ["sent", "refused"],
    parked: ["edited"],
    sending: ["answered"],
    answered: ["taken"],
    closed: [],
  };

  it("leave the phase as it is", () => {
    for (const [kind, phase] of Object.entries(PHASES) as Array<[Phase["kind"], Phase]>) {
      for (const event of phaseEvents.filter((candidate) => !listed[kind].includes(candidate.type))) {
        expect(transition(at(phase), event).phase, `${kind} on ${event.type}`).toEqual(phase);
      }
    }
  });

  it("closed ignores every event and every change of the texts: an answer after close() changes nothing", () => {
    const closed = at(PHASES.closed);
    const every: LiveEvent[] = [
      ...phaseEvents,
      { type: "refused", status: 404 },
      { type: "refused", status: 422 },
      { type: "reload-wanted" },
      { type: "deleted" },
      { type: "key-lost" },
      { type: "failing", loop: "feed", failing: true },
    ];
    for (const event of every) expect(transition(closed, event)).toBe(closed);
    expect(withSync(closed, TYPED)).toBe(closed);
  });
});

describe("what the state tells", () => {
  it("quiet: idle, parked or closed, no reload due, nothing unconfirmed (unless deleted or the key is lost)", () => {
    expect(Object.values(PHASES).filter((phase) => quiet(at(phase))).map((phase) => phase.kind)).toEqual(["idle", "parked", "closed"]);
    expect(quiet(at(PHASES.idle, { reloadDue: true }))).toBe(false);
    expect(quiet(at(PHASES.idle, { sync: TYPED }))).toBe(false);
    expect(quiet(at(PHASES.idle, { sync: TYPED, deleted: true }))).toBe(true);
    expect(quiet(at(PHASES.idle, { sync: INFLIGHT, keyLost: true }))).toBe(true);
  });

  it("statusOf: conflict while asking, else offline while either loop fails, else synced or syncing", () => {
    const failing = at(PHASES.idle, { failing: { patch: false, feed: true } });
    expect(statusOf(failing, true, true)).toBe("conflict");
    expect(statusOf(failing, false, true)).toBe("offline");
    expect(statusOf(at(PHASES.idle), false, true)).toBe("synced");
    expect(statusOf(at(PHASES.idle), false, false)).toBe("syncing");
  });
});

describe("the worker's next step", () => {
  const work = (over: Partial<{ feed: boolean; milestone: boolean }> = {}): Work => ({ feedQueued: () => over.feed ?? false, milestoneWaiting: () => over.milestone ?? false });

  it("takes an answer first, whatever else waits", () => {
    expect(nextStep(at(PHASES.answered, { reloadDue: true, sync: TYPED }), work({ feed: true }))).toEqual({ do: "take", outcome: ACCEPTED });
  });

  it("with a patch in flight waits: a feed answer and a reload wait for its answer", () => {
    expect(nextStep(at(PHASES.sending, { reloadDue: true }), work({ feed: true }))).toEqual({ do: "wait" });
  });

  it("without one: reload, then a feed answer, then the kept patch, then the pending edits or a milestone", () => {
    expect(nextStep(at(PHASES.idle, { reloadDue: true, sync: TYPED }), work({ feed: true }))).toEqual({ do: "reload" });
    expect(nextStep(at(PHASES.resend, { sync: INFLIGHT }), work({ feed: true }))).toEqual({ do: "apply-feed" });
    expect(nextStep(at(PHASES.resend, { sync: INFLIGHT }), work())).toEqual({ do: "resend" });
    expect(nextStep(at(PHASES.idle, { sync: TYPED }), work())).toEqual({ do: "send" });
    expect(nextStep(at(PHASES.idle), work({ milestone: true }))).toEqual({ do: "send" });
  });

  it("sends nothing parked, deleted, with the key lost or without edits, and stops once closed", () => {
    expect(nextStep(at(PHASES.parked, { sync: TYPED }), work())).toEqual({ do: "wait" });
    expect(nextStep(at(PHASES.idle, { sync: TYPED, deleted: true }), work())).toEqual({ do: "wait" });
    expect(nextStep(at(PHASES.idle, { sync: TYPED, keyLost: true }), work({ feed: true }))).toEqual({ do: "wait" });
    expect(nextStep(at(PHASES.idle), work())).toEqual({ do: "wait" });
    expect(nextStep(at(PHASES.closed), work({ feed: true }))).toEqual({ do: "stop" });
  });
});

describe("the tables of live-state.ts", () => {
  const source = readFileSync(new URL("../../src/client/live-state.ts", import.meta.url), "utf8");
  const firstColumn = (header: string) => {
    const table = source.slice(source.indexOf(` * | ${header} `)).split("\n *\n")[0]!;
    return table.split("\n").slice(2).map((row) => row.split("|")[1]!.trim()).filter((name) => name !== "");
  };

  it("list every phase and every fact of the state, in one place", () => {
    expect(firstColumn("phase")).toEqual(Object.keys(PHASES));
    expect(firstColumn("fact")).toEqual(Object.keys(IDLE).filter((key) => !["phase", "sync", "nextSeq", "eventsSeen", "announced"].includes(key)));
  });
});

describe("the transitions on a live document against the real service", () => {
  const { s, live } = liveDocumentsPerTest();
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("idle → parked on a 400: reported, nothing sent again until the next edit (parked → idle), which goes out with the next seq", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const { doc, net } = await live(id);
    const errors: unknown[] = [];
    doc.on("error", (error) => errors.push(error));
    // The first patch reaches the service with an op it cannot read: a real 400.
    net.hook = (request, index) =>
      request.method === "PATCH" && net.calls("PATCH", "/content")[0] === net.sent[index] ? { kind: "tamper", change: (body) => ({ ...body, ops: [{ op: "swap", index: 0 }] }) } : undefined;

    doc.setText("a\nb");
    expect(await waitUntil(() => errors.length === 1)).toBe(true);
    expect(errors[0] instanceof FolioError && errors[0].status).toBe(400);
    await pause(200);
    expect({ patches: net.calls("PATCH", "/content").length, text: doc.text, version: doc.version, status: doc.status }).toEqual({ patches: 1, text: "a\nb", version: 1, status: "syncing" });

    doc.setText("a\nb\nc");
    expect(await converged(s.client, id, [doc])).toBe("a\nb\nc");
    expect(net.calls("PATCH", "/content").map((call) => (call.body as { seq: number }).seq)).toEqual([1, 2]);
  });

  it("sending → answered → idle with deleted on a 404: the document deleted while the patch was in flight turns read-only once, the edit kept", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const { doc, net } = await live(id);
    const seen: string[] = [];
    doc.on("deleted", () => seen.push("deleted"));
    const gate = latch();
    net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("a\nb");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    await s.client.deleteDocument(id);
    gate.open();
    expect(await waitUntil(() => doc.deleted)).toBe(true);
    await doc.whenSynced(5_000);
    expect({ seen, text: doc.text, patches: net.calls("PATCH", "/content").length }).toEqual({ seen: ["deleted"], text: "a\nb", patches: 1 });
  });

  it("sending → closed: the milestone the patch carried is rejected, and the request, ending aborted after close(), changes nothing", async () => {
    const { id } = await s.client.createDocument({ title: "T", content: "a" });
    const { doc, net } = await live(id);
    const gate = latch();
    net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("a\nb");
    const milestone = doc.saveMilestone();
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    doc.close();
    await expect(milestone).rejects.toThrow("the live document was closed");
    gate.open();
    expect(await waitUntil(() => net.calls("PATCH", "/content")[0]!.settled)).toBe(true);
    await pause(50);
    expect({ version: doc.version, text: doc.text, status: doc.status, patches: net.calls("PATCH", "/content").length }).toEqual({ version: 1, text: "a\nb", status: "syncing", patches: 1 });
  });
});
