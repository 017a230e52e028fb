import { composeChain } from "../core/compose-ops.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import type { ChangeType, Store, VersionSummary } from "../storage/store.js";
import { documentNotFound } from "./documents.js";
import type { HeadTexts } from "./document-text.js";

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
    // writer's cache holds this head; from the store otherwise.
    const inMemory = texts.recentVersions(head, Math.max(0, since - 1));
    const records = inMemory ? inMemory.filter((record) => record.version > since) : await store.reads(id).versions(since, head.version);
    const events = records.map(eventOf);
    if (since === 0) return fullText(events);
    const sinceRecord = inMemory ? inMemory[0] : await store.reads(id).version(since);
    if (!sinceRecord || sinceRecord.ops === null || records.some((record) => record.ops === null)) return fullText(events);
    const ops = composeChain(records.map((record) => record.ops ?? []));
    return { fromVersion: since, currentVersion: head.version, ops, events };
  }
}

function eventOf(record: VersionSummary): ChangeEventView {
  const event: ChangeEventView = { version: record.version, changeType: record.changeType };
  if (record.clientId !== undefined) event.clientId = record.clientId;
  if (record.displayName !== undefined) event.displayName = record.displayName;
  if (record.changeType === "RENAMED") event.title = record.title;
  return event;
}
