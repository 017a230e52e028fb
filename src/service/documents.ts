import { createHash, randomUUID } from "node:crypto";
import { diffLines } from "../core/diff-lines.js";
import { splitLines } from "../core/lines.js";
import type { Sha256Hex } from "../core/checksum.js";
import type { Config } from "../config.js";
import type { DocumentRecord, Store, VersionRecord, VersionSummary } from "../storage/store.js";
import type { Clock } from "./clock.js";
import type { ServiceEvents } from "./observer.js";
import { DocumentWriter, type CommittedListener, type WriteCommand } from "./document-writer.js";
import { recentAfter } from "./head-cache.js";
import { rebuildText } from "./document-text.js";
import { ServiceError } from "./service-error.js";
import type { WorkingDocument } from "./working-document.js";

/** A document as the interface shows it. Times are epoch milliseconds. */
export interface DocumentView {
  id: string;
  title: string;
  content: string;
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** One entry of a document's user-visible history. */
export interface HistoryEntryView {
  documentId: string;
  version: number;
  title: string;
  content: string;
  changeType: VersionRecord["changeType"];
  timestamp: number;
  clientId?: string;
  displayName?: string;
}

const nodeSha256: Sha256Hex = (text) => createHash("sha256").update(text, "utf8").digest("hex");

export interface DocumentServiceOptions {
  store: Store;
  clock: Clock;
  config: Pick<Config, "history" | "documents">;
  /** Told about every commit, after it is durable (the change feed listens here). */
  onCommitted?: CommittedListener;
  events?: ServiceEvents;
}

/** The document use cases. Every write goes through one {@link DocumentWriter}. */
export class DocumentService {
  readonly writer: DocumentWriter;
  private readonly store: Store;
  private readonly maxContentBytes: number;
  private readonly clock: Clock;
  private readonly retentionMs: number;

  constructor(options: DocumentServiceOptions) {
    this.store = options.store;
    this.maxContentBytes = options.config.documents.maxContentBytes;
    this.clock = options.clock;
    this.retentionMs = options.config.history.retentionSeconds * 1000;
    this.writer = new DocumentWriter(
      options.store,
      {
        now: () => options.clock.now(),
        sha256: nodeSha256,
        pauseMs: options.config.history.pauseSeconds * 1000,
        retentionMs: options.config.history.retentionSeconds * 1000,
      },
      (id, version) => options.onCommitted?.(id, version),
      undefined,
      options.events,
    );
  }

  async create(input: { title: string; content: string }): Promise<DocumentView> {
    const title = checkTitle(input.title);
    const lines = this.checkContent(input.content);
    const id = randomUUID();
    return this.writer.submit(id, async (doc) => {
      await doc.commit({ changeType: "CREATED", milestone: true, title, lines, text: input.content, ops: diffLines([""], lines), deleted: false });
      return view(doc, input.content);
    });
  }

  async get(id: string): Promise<DocumentView> {
    const head = await this.store.getDocument(id);
    if (!head || head.deleted) throw documentNotFound(id);
    return { ...summary(head), content: await this.headText(head) };
  }

  /** Every existing document, oldest first. */
  async list(): Promise<DocumentView[]> {
    const heads = await this.store.listDocuments();
    const views: DocumentView[] = [];
    for (const head of heads) views.push({ ...summary(head), content: await this.headText(head) });
    return views;
  }

  async update(id: string, input: { title: string; content: string; expectedVersion?: number }): Promise<DocumentView> {
    const title = checkTitle(input.title);
    const lines = this.checkContent(input.content);
    return this.write(id, async (doc, head) => {
      if (input.expectedVersion !== undefined && input.expectedVersion !== head.version) {
        throw new ServiceError("version-conflict", `expectedVersion ${input.expectedVersion} is not the current version ${head.version}`);
      }
      const ops = diffLines(await doc.lines(), lines);
      await doc.commit({ changeType: "UPDATED", milestone: true, title, lines, text: input.content, ops, deleted: false });
      return view(doc, input.content);
    });
  }

  async remove(id: string): Promise<void> {
    await this.write(id, async (doc, head) => {
      await doc.commit({ changeType: "DELETED", milestone: true, title: head.title, lines: await doc.lines(), text: await doc.text(), ops: [], deleted: true });
    }, { allowDeleted: false });
  }

  /**
   * Without `version`: brings a deleted document back with its last state before deletion.
   * With `version`: restores that version, also as a rollback of a living document.
   */
  async restore(id: string, version?: number): Promise<DocumentView> {
    return this.write(
      id,
      async (doc, head) => {
        if (version === undefined && !head.deleted) {
          throw new ServiceError("document-exists", `document ${id} exists; name a version to roll back to`);
        }
        const target = version ?? head.version;
        if (target < 1 || target > head.version) throw new ServiceError("not-found", `document ${id} has no version ${target}`);
        const record = await doc.version(target);
        const text = record && (await rebuildText(doc, target));
        if (!record || !text) throw new ServiceError("not-found", `version ${target} of document ${id} was compacted`);
        const ops = diffLines(await doc.lines(), text.lines);
        const changeType = head.deleted ? "RESTORED" : "ROLLED_BACK";
        await doc.commit({ changeType, milestone: true, title: record.title, lines: text.lines, text: text.text, ops, deleted: false });
        return view(doc, text.text);
      },
      { allowDeleted: true },
    );
  }

  async rename(id: string, input: { title: string; expectedVersion: number }): Promise<DocumentView> {
    const title = checkTitle(input.title);
    return this.write(id, async (doc, head) => {
      if (input.expectedVersion !== head.version) {
        throw new ServiceError("version-conflict", `expectedVersion ${input.expectedVersion} is not the current version ${head.version}`);
      }
      const text = await doc.text();
      await doc.commit({ changeType: "RENAMED", milestone: true, title, lines: await doc.lines(), text, ops: [], deleted: false });
      return view(doc, text);
    });
  }

  /** The milestones oldest first, plus the newest state when it is not one; deleted documents included. */
  async history(id: string): Promise<HistoryEntryView[]> {
    const head = await this.store.getDocument(id);
    if (!head) throw documentNotFound(id);
    const milestones = await this.store.getMilestones(id);
    const entries = milestones.map((record) => historyEntry(record, record.text ?? ""));
    if (milestones.at(-1)?.version !== head.version) {
      const record = await this.store.getVersion(id, head.version);
      if (record) entries.push(historyEntry(record, await this.headText(head)));
    }
    return entries;
  }

  /** Waits for queued writes, so nothing acknowledged is lost at shutdown. */
  async close(): Promise<void> {
    await this.writer.idle();
  }

  /** Runs a write on an existing document: 404 for an unknown (or, unless allowed, deleted) one. */
  write<T>(id: string, command: (doc: WorkingDocument, head: DocumentRecord) => Promise<T>, options = { allowDeleted: false }): Promise<T> {
    const run: WriteCommand<T> = async (doc) => {
      const head = doc.document;
      if (!head || (head.deleted && !options.allowDeleted)) throw documentNotFound(id);
      return command(doc, head);
    };
    return this.writer.submit(id, run);
  }

  /** Splits content into lines after checking it; 413 above the size limit. */
  checkContent(content: string): string[] {
    if (!content.isWellFormed()) throw new ServiceError("invalid-request", "content is not well-formed Unicode (a lone surrogate)");
    const bytes = Buffer.byteLength(content, "utf8");
    if (bytes > this.maxContentBytes) {
      throw new ServiceError("content-too-large", `content is ${bytes} bytes; the limit is ${this.maxContentBytes}`);
    }
    return splitLines(content);
  }

  /**
   * The versions in `(after, head.version]` from memory, when the cache holds this head and reaches
   * back that far; `undefined` sends the caller to the store.
   */
  recentVersions(head: DocumentRecord, after: number): VersionSummary[] | undefined {
    const cached = this.writer.cache.get(head.id, head.version);
    return cached && recentAfter(cached, after, this.retentionCutoff());
  }

  /** Versions created before this moment may be compacted (their ops dropped) at any time now. */
  retentionCutoff(): number {
    return this.clock.now() - this.retentionMs;
  }

  /** The exact newest text, from the cache when it holds this version. */
  async headText(head: DocumentRecord): Promise<string> {
    const cached = this.writer.cache.get(head.id, head.version);
    if (cached) return cached.text;
    const rebuilt = await rebuildText(storeSource(this.store, head.id), head.version);
    if (!rebuilt) throw new Error(`the newest text of document ${head.id} cannot be rebuilt`);
    return rebuilt.text;
  }
}

/** The 404 of a document that does not exist (or, outside history, restore and the feed, is deleted). */
export function documentNotFound(id: string): ServiceError {
  return new ServiceError("not-found", `no document ${id}`);
}

/** Titles count Unicode code points (the schema holds 1..255); white space alone is no title. */
function checkTitle(title: string): string {
  if (!title.isWellFormed()) throw new ServiceError("invalid-request", "title is not well-formed Unicode (a lone surrogate)");
  if (title.trim() === "") throw new ServiceError("invalid-request", "title must not be empty or only white space");
  return title;
}

function summary(head: DocumentRecord): Omit<DocumentView, "content"> {
  return { id: head.id, title: head.title, version: head.version, createdAt: head.createdAt, updatedAt: head.updatedAt };
}

function view(doc: WorkingDocument, content: string): DocumentView {
  const head = doc.document;
  if (!head) throw new Error("a committed document has a head");
  return { ...summary(head), content };
}

function historyEntry(record: VersionRecord, content: string): HistoryEntryView {
  const entry: HistoryEntryView = {
    documentId: record.documentId,
    version: record.version,
    title: record.title,
    content,
    changeType: record.changeType,
    timestamp: record.createdAt,
  };
  if (record.clientId !== undefined) entry.clientId = record.clientId;
  if (record.displayName !== undefined) entry.displayName = record.displayName;
  return entry;
}

function storeSource(store: Store, id: string) {
  return {
    fullTextAtOrBefore: (version: number) => store.getFullTextAtOrBefore(id, version),
    versions: (after: number, upTo: number) => store.getVersions(id, after, upTo),
  };
}
