import { composeChain } from "../core/compose-ops.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import type { ChangeType, Store, VersionSummary } from "../storage/store.js";
import { documentNotFound } from "./documents.js";
import type { HeadTexts } from "./document-text.js";
import { opsWeight } from "./caches/head-cache.js";

/** One recorded version as the feed reports it. */
export interface ChangeEventView {
  version: number;
  changeType: ChangeType;
  clientId?: string;
  displayName?: string;
  title?: string;
}

/** Everything since a version: the composed ops from it, or the full text when no exact diff exists. */
export interface ChangeFeedView {
  fromVersion?: number;
  currentVersion: number;
  ops?: NormalizedOp[];
  content?: string;
  events: ChangeEventView[];
}

/**
 * How much of the versions' ops a feed answer composes at most (the UTF-8 bytes of their stored JSON,
 * or the characters of the ops held in memory): past it the answer is the full text instead, as for
 * a compacted `since`. Composing costs time in the size of the ops, and a few versions that each
 * rewrite a big document would stall every other request (docs/api.md, "Bounds").
 */
export const FEED_COMPOSE_BYTES = 1024 * 1024;

/**
 * One read of the store for the feed: the head row, then the versions after `since` from the
 * writer's head cache while it holds the head and reaches back that far (HeadTexts.recentVersions),
 * else from the store. The polls that read together share this read and its answer
 * (caches/shared-reads.ts).
 */
export class ChangesSince {
  constructor(
    private readonly store: Store,
    private readonly texts: HeadTexts,
  ) {}

  /** What is new since `since` right now, or `undefined` when nothing is. */
  async read(id: string, since: number): Promise<ChangeFeedView | undefined> {
    const { store, texts } = this;
    const head = await store.reads(id).document();
    if (!head) throw documentNotFound(id);
    if (since === head.version) return undefined;
    const fullText = async (events: ChangeEventView[]): Promise<ChangeFeedView> => ({
      currentVersion: head.version,
      content: await texts.headText(head),
      events,
    });
    if (since > head.version) return fullText([]);

    // The versions since `since` (and `since` itself, for its compaction) from memory when the
    // writer's cache holds this head; from the store otherwise, weighed before their ops are read.
    const inMemory = texts.recentVersions(head, Math.max(0, since - 1));
    if (inMemory) {
      const records = inMemory.filter((record) => record.version > since);
      const events = records.map(eventOf);
      const composable = since > 0 && inMemory[0]?.ops != null && records.every((record) => record.ops !== null);
      if (!composable || records.reduce((sum, record) => sum + opsWeight(record.ops ?? []), 0) > FEED_COMPOSE_BYTES) return fullText(events);
      return { fromVersion: since, currentVersion: head.version, ops: composeChain(records.map((record) => record.ops ?? [])), events };
    }
    const reads = store.reads(id);
    const heads = await reads.versionHeads(Math.max(0, since - 1), head.version);
    const after = heads.filter((version) => version.version > since);
    const events = after.map(eventOf);
    const composable = since > 0 && heads[0]?.version === since && heads.every((version) => version.opsBytes !== null);
    if (!composable || after.reduce((sum, version) => sum + (version.opsBytes ?? 0), 0) > FEED_COMPOSE_BYTES) return fullText(events);
    const records = await reads.versions(since, head.version);
    // Compacted between the two reads: no exact diff any more.
    if (records.length !== after.length || records.some((record) => record.ops === null)) return fullText(events);
    return { fromVersion: since, currentVersion: head.version, ops: composeChain(records.map((record) => record.ops ?? [])), events };
  }
}

function eventOf(record: Pick<VersionSummary, "version" | "changeType" | "clientId" | "displayName" | "title">): ChangeEventView {
  const event: ChangeEventView = { version: record.version, changeType: record.changeType };
  if (record.clientId !== undefined) event.clientId = record.clientId;
  if (record.displayName !== undefined) event.displayName = record.displayName;
  if (record.changeType === "RENAMED") event.title = record.title;
  return event;
}
