import { splitLines } from "../core/lines.js";
import { validateOps } from "../core/validate-ops.js";
import type { DocumentRequests } from "./document-requests.js";
import { feedNews } from "./feed-events.js";
import type { LineCodec } from "./line-codec.js";
import type { LiveEvent, LiveState } from "./live-state.js";
import type { PendingEntry } from "./pending-log.js";
import { followed, replaced, type Moved } from "./sync-text.js";
import type { ChangeFeed, Document } from "./types.js";

/** What the follow cycle reads and changes of its live document (live-document.ts). */
export interface FollowHost {
  state(): LiveState;
  apply(event: LiveEvent): void;
  /** Takes a step of the texts: kept, then shown. */
  moveTo(moved: Moved, entry: PendingEntry): Promise<void>;
  /** The title as shown (decoded). */
  setTitle(title: string): void;
  lostKey(): void;
}

/**
 * How a live document follows the service's text (docs/editing-protocol.md, "The client"): a feed
 * answer's events and ops applied, a whole reload, the title read again after a restore, and the
 * check that an encrypted document's key still opens it when lines that do not open come in. It
 * holds no state: the texts, versions and facts are the live document's LiveState.
 */
export class FollowCycle {
  constructor(
    private readonly host: FollowHost,
    private readonly requests: DocumentRequests,
    private readonly codec: LineCodec,
  ) {}

  async applyFeed(answer: ChangeFeed): Promise<void> {
    const news = feedNews(answer.events, this.host.state().eventsSeen);
    for (const step of news.steps) this.host.apply(step);
    if (news.title !== undefined) this.host.setTitle(this.codec.decodeTitle(news.title));
    const { sync } = this.host.state();
    const version = answer.currentVersion;
    if (version > sync.confirmed.version && answer.content !== undefined) {
      await this.host.moveTo(replaced(sync, this.codec, splitLines(answer.content), version), { replaced: { text: answer.content, version } });
    } else if (version > sync.confirmed.version && answer.fromVersion === sync.confirmed.version && answer.ops) {
      // (An answer from another version than the confirmed one only brought events: the feed asks on.)
      const ops = validateOps(answer.ops);
      const moved = ops.ok ? followed(sync, this.codec, ops.ops, version) : undefined;
      if (moved) await this.host.moveTo(moved, { followed: { ops: answer.ops, version } });
      else this.host.apply({ type: "reload-wanted" });
    }
    if (news.titleStale) await this.readTitle();
  }

  /** GET the document and move onto it. */
  async reload(): Promise<void> {
    this.host.apply({ type: "reloading" });
    const document = await this.read();
    if (!document) return;
    this.host.apply({ type: "restored" });
    this.host.apply({ type: "seen", version: document.version });
    this.host.setTitle(this.codec.decodeTitle(document.title));
    const { content, version } = document;
    await this.host.moveTo(replaced(this.host.state().sync, this.codec, splitLines(content), version), { replaced: { text: content, version } });
  }

  /**
   * Before a remote change of an encrypted document is taken: when a line it brings does not open,
   * the title is read, and when that does not open either, the key changed: the change is not taken
   * (the text stays as it was shown), and nothing more is sent. True then.
   */
  async keyLostBy(moved: Moved): Promise<boolean> {
    if (!this.codec.encrypted || !this.touchesUnreadable(moved)) return false;
    const document = await this.read();
    if (!document || !this.codec.isUnreadable(this.codec.decodeTitle(document.title))) return false;
    this.host.lostKey();
    return true;
  }

  private touchesUnreadable({ remote, state }: Moved): boolean {
    let found = false;
    remote.iterChangedRanges((_fromA, _toA, fromB, toB) => {
      for (let at = fromB; !found && at <= toB; ) {
        const line = state.local.lineAt(at);
        found = this.codec.isUnreadable(line.text);
        at = line.to + 1;
      }
    });
    return found;
  }

  private async readTitle(): Promise<void> {
    const document = await this.read();
    if (document) this.host.setTitle(this.codec.decodeTitle(document.title));
  }

  /** The document as the service has it now; undefined (and marked deleted) on a 404. */
  private async read(): Promise<Document | undefined> {
    const document = await this.requests.read();
    if (!document) this.host.apply({ type: "deleted" });
    return document;
  }
}
