import { ChangeSet, type Text } from "@codemirror/state";
import { PLAIN_CODEC } from "../../src/client/line-codec.js";
import { serviceTextOf } from "../../src/client/service-text.js";
import { acked, conflicted, edited, followed, nextPatch, sent, startSync, type Moved, type SyncState, type Unusable } from "../../src/client/sync-text.js";
import type { ChangeFeed, ContentPatchRequest } from "../../src/client/types.js";
import { ownBefore } from "../../src/client/own-text.js";
import { checksumOf } from "../../src/core/checksum.js";
import { mapCursor } from "../../src/core/concurrent-changes.js";
import { composeChain } from "../../src/core/compose-ops.js";
import { joinLines } from "../../src/core/lines.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { applyRebased, rebasePatch } from "../../src/core/rebuild-rule.js";
import { validateOps } from "../../src/core/validate-ops.js";
import { prng } from "./prng.js";

/**
 * A deterministic simulation of live documents editing one text at once: the texts' algebra of the
 * client (src/client/sync-text.ts, as the live document runs it: one patch in flight, feed answers
 * applied only between patches) against a service in memory that decides patches by the service's
 * own rule (src/core rebasePatch, applyRebased, as src/service/patch-content.ts does) and composes
 * feed answers as the feed does. A seeded scheduler interleaves keystrokes, sends, the service's
 * answers and feed answers in every order.
 *
 * Every character typed is unique (each client has its own range of code points), so the merge
 * rule (docs/editing-protocol.md, "The merge rule") is checked against what was done, not against
 * an expected text: at quiescence every client holds the service's text; no deleted character is
 * in it; every other typed character is in it exactly once; and every word typed (a run of keys,
 * each right after the one before) whose characters all survive is in one piece.
 */
export interface SimulationReport {
  text: string;
  versions: number;
  conflicts: number;
  words: number;
}

interface Version {
  lines: string[];
  ops: NormalizedOp[];
  checksum: string;
}

type Answer = { status: 200; result: { version: number; opsSinceBase: ReturnType<typeof toLineOperation>[]; checksum: string } } | { status: 409; conflict: { currentVersion: number; opsSinceBase: ReturnType<typeof toLineOperation>[] } };

/** The service's decision for a content patch, in memory (no receipts: nothing is resent here). */
class SimService {
  readonly versions: Version[];
  conflicts = 0;

  constructor(text: string) {
    const lines = text.split("\n");
    this.versions = [{ lines, ops: [], checksum: checksumOf(text) }];
  }

  get head(): number {
    return this.versions.length;
  }

  private at(version: number): Version {
    return this.versions[version - 1]!;
  }

  patch(request: ContentPatchRequest): Answer {
    const submitted = validateOps(request.ops);
    if (!submitted.ok) throw new Error(`the client sent invalid ops: ${submitted.message}`);
    const base = this.at(request.baseVersion);
    if (request.checksum !== base.checksum) throw new Error(`the client sent the checksum of another text than version ${request.baseVersion}`);
    let ops = submitted.ops;
    let opsSinceBase: NormalizedOp[] = [];
    if (request.baseVersion < this.head) {
      const foreign = composeChain(this.versions.slice(request.baseVersion).map((version) => version.ops));
      let rebased = rebasePatch(foreign, ops);
      if (!rebased.ok && rebased.needsBase) rebased = rebasePatch(foreign, ops, base.lines);
      if (!rebased.ok) {
        this.conflicts++;
        return { status: 409, conflict: { currentVersion: this.head, opsSinceBase: (rebased.needsBase ? foreign : rebased.opsSinceBase).map(toLineOperation) } };
      }
      ops = rebased.ops;
      opsSinceBase = rebased.opsSinceBase;
    }
    const applied = applyRebased(this.at(this.head).lines, ops);
    if (!applied.ok) throw new Error(`a patch did not apply: ${applied.message}`);
    if (applied.ops.length > 0) {
      const text = joinLines(applied.lines);
      this.versions.push({ lines: applied.lines, ops: applied.ops, checksum: checksumOf(text) });
    }
    return { status: 200, result: { version: this.head, opsSinceBase: opsSinceBase.map(toLineOperation), checksum: this.at(this.head).checksum } };
  }

  changes(since: number): ChangeFeed | undefined {
    if (since >= this.head) return undefined;
    const ops = composeChain(this.versions.slice(since).map((version) => version.ops));
    return { fromVersion: since, currentVersion: this.head, ops: ops.map(toLineOperation), events: [] };
  }
}

export interface Typing {
  cursor: number;
  /** The other end of a selection the first key replaces (a scripted race), mapped as the text changes. */
  selected?: number;
  keys: string[];
  /** The unique characters of the word, for the check of its piece. */
  word: string[];
}

/** One live document's texts and what is on its way, moved by the scheduler. */
export class SimClient {
  sync: SyncState;
  nextSeq = 1;
  request: ContentPatchRequest | undefined;
  answer: Answer | undefined;
  polling: number | undefined;
  feed: ChangeFeed | undefined;
  typing: Typing | undefined;
  /** The characters this client deleted: never in its text again. */
  readonly deletedHere = new Set<string>();

  constructor(
    readonly id: number,
    service: SimService,
    private readonly alphabet: () => string,
  ) {
    this.sync = startSync(serviceTextOf(PLAIN_CODEC, service.head, joinLines(service.versions.at(-1)!.lines), service.versions.at(-1)!.checksum));
  }

  get text(): Text {
    return this.sync.local;
  }

  edit(specs: Array<{ from: number; to?: number; insert?: string }>): void {
    const changes = ChangeSet.of(specs, this.sync.local.length);
    this.sync = edited(this.sync, changes);
    if (this.typing) {
      this.typing.cursor = changes.mapPos(this.typing.cursor, 1);
      if (this.typing.selected !== undefined) this.typing.selected = changes.mapPos(this.typing.selected, 1);
    }
  }

  /** A remote change arrived: the cursor moves as the editor binding moves it (TextChange.mapCursor). */
  private moved(result: Moved | Unusable | undefined, what: string): void {
    if (!result || "unusable" in result) throw new Error(`client ${this.id}: ${what} could not be taken${result ? `: ${result.unusable}` : ""}`);
    const before = this.sync;
    if (this.typing) {
      this.typing.cursor = mapCursor(before.local, result.remote, this.typing.cursor, ownBefore(before.own, ChangeSet.empty(before.local.length)));
      if (this.typing.selected !== undefined) this.typing.selected = result.remote.mapPos(this.typing.selected, 1);
    }
    this.sync = result.state;
  }

  send(checksum: string): void {
    const inflight = nextPatch(this.sync, PLAIN_CODEC, { checksum, clientId: `c${this.id}`, seq: this.nextSeq++, displayName: undefined, milestone: false });
    this.sync = sent(this.sync, inflight);
    this.request = inflight.request;
  }

  take(): void {
    const answer = this.answer!;
    this.answer = undefined;
    if (answer.status === 200) this.moved(acked(this.sync, PLAIN_CODEC, answer.result), "a 200");
    else this.moved(conflicted(this.sync, PLAIN_CODEC, answer.conflict), "a 409");
  }

  applyFeed(): void {
    const feed = this.feed;
    if (!feed) return;
    this.feed = undefined;
    if (feed.currentVersion <= this.sync.confirmed.version || feed.fromVersion !== this.sync.confirmed.version) return;
    const ops = validateOps(feed.ops);
    if (!ops.ok) throw new Error(`a feed answer's ops are invalid: ${ops.message}`);
    this.moved(followed(this.sync, PLAIN_CODEC, ops.ops, feed.currentVersion), "a feed answer");
  }

  /** A new word typed at a random word end or line end: a blank (or a line break) and four unique characters. */
  startWord(random: () => number, newLine: boolean): void {
    const text = this.text.toString();
    const ends: number[] = [];
    for (let at = 1; at <= text.length; at++) if (text[at - 1] !== " " && text[at - 1] !== "\n" && (at === text.length || text[at] === " " || text[at] === "\n")) ends.push(at);
    const word = Array.from({ length: 4 }, () => this.alphabet());
    const cursor = ends.length > 0 ? ends[Math.floor(random() * ends.length)]! : text.length;
    this.typing = { cursor: newLine ? this.text.lineAt(cursor).to : cursor, keys: [newLine ? "\n" : " ", ...word], word };
  }
}

/** A generated character (each one unique in a run), as opposed to the ASCII of the initial text and the blanks. */
const isMarked = (char: string): boolean => char.codePointAt(0)! > 0x7f;

export interface SimulationOptions {
  clients?: number;
  steps?: number;
  initial?: string;
  trace?: (line: string) => void;
  /** Sets the clients' first edits and typing before the scheduler runs (a scripted race). */
  prepare?: (clients: SimClient[]) => void;
}

export function simulate(seed: number, options: SimulationOptions = {}): SimulationReport {
  const random = prng(seed);
  const service = new SimService(options.initial ?? "Plan release\nAnnounce soon\nShip today");
  let next = 0;
  const clients = Array.from({ length: options.clients ?? 3 }, (_, k) => new SimClient(k, service, () => String.fromCharCode(0x4e00 + k * 0x800 + next++ % 0x800)));
  const deleted = new Set<string>();
  const words: string[][] = [];
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

  /** One random step of `client`; `starting`: it may begin a new word or deletion. */
  const act = (client: SimClient, starting: boolean): boolean => {
    const choices: Array<() => void> = [];
    if (client.typing) {
      choices.push(() => {
        const typing = client.typing!;
        const from = Math.min(typing.cursor, typing.selected ?? typing.cursor);
        const key = typing.keys.shift()!;
        client.edit([{ from, to: Math.max(typing.cursor, typing.selected ?? typing.cursor), insert: key }]);
        typing.selected = undefined;
        typing.cursor = from + key.length;
        if (typing.keys.length === 0) {
          words.push(typing.word);
          client.typing = undefined;
        }
      });
    }
    if (starting && !client.typing) {
      choices.push(() => client.startWord(random, false));
      choices.push(() => client.startWord(random, true));
      choices.push(() => deleteSomething(client));
    }
    if (!client.sync.inflight && !client.sync.pending.empty && !client.feed) choices.push(() => client.send(client.sync.confirmed.checksum ?? checksumOf(joinLines(client.sync.confirmed.wire))));
    if (client.request) choices.push(() => ((client.answer = service.patch(client.request!)), (client.request = undefined)));
    if (client.answer) choices.push(() => client.take());
    if (client.polling === undefined && !client.feed) choices.push(() => (client.polling = client.sync.confirmed.version));
    if (client.polling !== undefined && client.polling < service.head) choices.push(() => {
      client.feed = service.changes(client.polling!);
      client.polling = undefined;
    });
    if (client.feed && !client.sync.inflight) choices.push(() => client.applyFeed());
    if (choices.length === 0) return false;
    const choice = pick(choices);
    const before = client.text.toString();
    choice();
    const back = [...client.text.toString()].find((char) => client.deletedHere.has(char) && isMarked(char));
    if (back) throw new Error(`seed ${seed}: client ${client.id} deleted ${back} and has it back after ${choice.toString().slice(6, 40)}: ${JSON.stringify(before)} → ${JSON.stringify(client.text.toString())}`);
    options.trace?.(`c${client.id} ${choice.toString().slice(6, 60).replace(/\s+/g, " ")} | v${client.sync.confirmed.version} ${JSON.stringify(client.text.toString())} inflight=${client.sync.inflight ? "y" : "n"} pending=${JSON.stringify(client.sync.pending.toJSON())} service v${service.head}`);
    return true;
  };

  const markDeleted = (client: SimClient, char: string): void => {
    deleted.add(char);
    client.deletedHere.add(char);
  };

  /** Deletes a word (with the blank before it), or replaces a whole line's text by a new word, as selected in the local text. */
  const deleteSomething = (client: SimClient): void => {
    const text = client.text.toString();
    const line = client.text.line(1 + Math.floor(random() * client.text.lines));
    if (random() < 0.3) {
      for (const char of line.text) markDeleted(client, char);
      const word = [client.id === 0 ? "R" : "S", ...Array.from({ length: 3 }, () => String.fromCharCode(0x9000 + client.id * 0x400 + next++ % 0x400))];
      client.edit([{ from: line.from, to: line.to, insert: word.join("") }]);
      words.push(word.slice(1));
      return;
    }
    const starts = [...line.text.matchAll(/ [^ ]+/g)].map((match) => line.from + match.index);
    if (starts.length === 0) return;
    const from = pick(starts);
    let to = from + 1;
    while (to < line.to && text[to] !== " ") to++;
    for (const char of text.slice(from, to)) markDeleted(client, char);
    client.edit([{ from, to }]);
  };

  options.prepare?.(clients);
  const steps = options.steps ?? 300;
  for (let step = 0; step < steps; step++) act(pick(clients), true);
  // Quiescence: every word finished, everything sent, answered and followed.
  for (let round = 0; round < 20_000; round++) {
    const busy = clients.filter((client) => client.typing || client.request || client.answer || client.feed || client.sync.inflight || !client.sync.pending.empty || client.sync.confirmed.version < service.head);
    if (busy.length === 0) break;
    act(pick(busy), false);
    if (round === 19_999) throw new Error(`seed ${seed}: no quiescence`);
  }

  const final = joinLines(service.versions.at(-1)!.lines);
  for (const client of clients) {
    if (client.text.toString() !== final) throw new Error(`seed ${seed}: client ${client.id} holds ${JSON.stringify(client.text.toString())}, the service ${JSON.stringify(final)}`);
  }
  for (const char of deleted) if (final.includes(char) && isMarked(char)) throw new Error(`seed ${seed}: deleted ${char} came back in ${JSON.stringify(final)}`);
  const counts = new Map<string, number>();
  for (const char of final) counts.set(char, (counts.get(char) ?? 0) + 1);
  for (const word of words) {
    for (const char of word) {
      const count = counts.get(char) ?? 0;
      if (count !== (deleted.has(char) ? 0 : 1)) throw new Error(`seed ${seed}: ${char} is there ${count} times in ${JSON.stringify(final)}`);
    }
    if (word.some((char) => deleted.has(char))) continue;
    const at = final.indexOf(word[0]!);
    if (final.slice(at, at + word.length) !== word.join("")) throw new Error(`seed ${seed}: the word ${word.join("")} is split in ${JSON.stringify(final)}`);
  }
  return { text: final, versions: service.head, conflicts: service.conflicts, words: words.length };
}
