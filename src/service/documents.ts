import { randomUUID } from "node:crypto";
import { diffLines } from "../core/diff-lines.js";
import { splitLines } from "../core/lines.js";
import type { DocumentRecord, Store, VersionRecord } from "../storage/store.js";
import type { ContentLimit } from "./content-limit.js";
import type { DocumentWriter, WriteCommand } from "./document-writer.js";
import { rebuildText, type HeadTexts } from "./document-text.js";
import { ServiceError } from "./service-error.js";
import type { WorkingDocument } from "./working-document.js";

/**
 * How hard the service looks for the smallest diff of a whole-text change (PUT, restore, rollback):
 * about a tenth of the client's budget, some tens of milliseconds at most, since it runs on the
 * event loop every other request waits on. Past it the changed middle is one replace: still exact,
 * only coarser (docs/api.md, "Bounds").
 */
const WHOLE_TEXT_DIFF = { workBudget: 2_000_000 };

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

/**
 * A document's history at one version, read in parts when asked, so that a caller that kept the
 * milestones it saw (they never change; new ones only come after them) reads only the new ones.
 */
export interface HistoryAt {
  version: number;
  /** The milestones after version `after` (at most `limit` of them), up to this version, oldest first. */
  milestonesAfter(after: number, limit?: number): Promise<HistoryEntryView[]>;
  /** The entry of this version, shown after the milestones when they do not end with it (the newest state). */
  newest(): Promise<HistoryEntryView | undefined>;
}

export interface DocumentServiceOptions {
  store: Store;
  /** The one way into a document's history (built by the composition root, services.ts). */
  writer: DocumentWriter;
  texts: HeadTexts;
  contentLimit: ContentLimit;
}

/** The document use cases. Every write goes through the one {@link DocumentWriter}. */
export class DocumentService {
  private readonly store: Store;
  private readonly writer: DocumentWriter;
  private readonly texts: HeadTexts;
  private readonly contentLimit: ContentLimit;

  constructor(options: DocumentServiceOptions) {
    this.store = options.store;
    this.writer = options.writer;
    this.texts = options.texts;
    this.contentLimit = options.contentLimit;
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
    const head = await this.store.reads(id).document();
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
      const ops = diffLines(await doc.lines(), lines, WHOLE_TEXT_DIFF);
      await doc.commit({ changeType: "UPDATED", milestone: true, title, lines, text: input.content, ops, deleted: false, keepsPrevious: true });
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
        const ops = diffLines(await doc.lines(), text.lines, WHOLE_TEXT_DIFF);
        const changeType = head.deleted ? "RESTORED" : "ROLLED_BACK";
        await doc.commit({ changeType, milestone: true, title: record.title, lines: text.lines, text: text.text, ops, deleted: false, keepsPrevious: true });
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

  /**
   * The history as of the head now (the milestones oldest first, plus the newest state when it is
   * not one; deleted documents included): its version at once, its parts when asked.
   */
  async history(id: string): Promise<HistoryAt> {
    const head = await this.store.reads(id).document();
    if (!head) throw documentNotFound(id);
    const reads = this.store.reads(id);
    return {
      version: head.version,
      // A version committed since the head was read is left out: the answer is the head's.
      milestonesAfter: async (after, limit) =>
        (await reads.milestones(after, limit)).filter((record) => record.version <= head.version).map((record) => historyEntry(record, record.text ?? "")),
      newest: async () => {
        const record = this.texts.recentVersions(head, head.version - 1)?.[0] ?? (await reads.version(head.version));
        return record === undefined ? undefined : historyEntry(record, await this.headText(head));
      },
    };
  }

  /**
   * The title and text of a document, or of one of its versions, for an export (a read: no version is
   * written). 404 for a deleted document (as GET), and for a version it never had or that was compacted.
   */
  async snapshot(id: string, version?: number): Promise<{ title: string; content: string; version: number }> {
    const reads = this.store.reads(id);
    const head = await reads.document();
    if (!head || head.deleted) throw documentNotFound(id);
    if (version === undefined || version === head.version) return { title: head.title, content: await this.headText(head), version: head.version };
    if (version > head.version) throw new ServiceError("not-found", `document ${id} has no version ${version}`);
    const record = await reads.version(version);
    const text = record && (await rebuildText(reads, version));
    if (!record || !text) throw new ServiceError("not-found", `version ${version} of document ${id} was compacted`);
    return { title: record.title, content: text.text, version };
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
    this.contentLimit.check(content, "content");
    return splitLines(content);
  }

  private headText(head: DocumentRecord): Promise<string> {
    return this.texts.headText(head);
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

function historyEntry(record: Omit<VersionRecord, "ops" | "text">, content: string): HistoryEntryView {
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
