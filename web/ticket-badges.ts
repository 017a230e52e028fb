/**
 * Inline ticket badges: when logged in to the tracker, every node line that links `#US-<ref>` /
 * `#T-<ref>` ends in a small badge with the ticket's status and assignee (a CodeMirror widget, inline,
 * inside the line's own height, not focusable). What is fetched when (docs/editor.md, "The tracker panel"):
 * the links of the whole text, after the text has been still for a moment (never per keystroke), only
 * the tickets not in the cache or expired there, at most four at a time; on log-in; every minute while
 * the page is visible; and a ticket the panel loads or moves goes into the cache at once. Each answer
 * also sets the status box of the lines that link the ticket and have one (the box follows
 * statusClosed), as an ordinary local edit.
 */
import { RangeSetBuilder, StateEffect, type Extension } from "@codemirror/state";
import { Decoration, ViewPlugin, WidgetType, type DecorationSet, type EditorView, type ViewUpdate } from "@codemirror/view";
import { FolioError, type FolioClient, type LiveDocument, type TrackerTicketDetail } from "../src/client/index.js";
import { parseLine, trackerSlug, withBox, type TicketKind } from "./outline.js";
import { TicketCache, type CachedTicket, type TicketKey } from "./ticket-cache.js";

/** How long the text must be still before its links are looked at. */
const SETTLE_MS = 600;
/** How often the badges are brought up to date while nothing else happens (the cache's lifetime). */
const REFRESH_MS = 60_000;

const refreshBadges = StateEffect.define<null>();

class TicketBadge extends WidgetType {
  constructor(
    readonly label: string,
    readonly title: string,
    readonly closed: boolean,
    readonly missing: boolean,
  ) {
    super();
  }
  override eq(other: TicketBadge): boolean {
    return other.label === this.label && other.title === this.title && other.closed === this.closed && other.missing === this.missing;
  }
  override toDOM(): HTMLElement {
    const badge = document.createElement("span");
    badge.className = "cm-ticket-badge";
    badge.dataset.closed = String(this.closed);
    if (this.missing) badge.dataset.missing = "true";
    badge.title = this.title;
    badge.textContent = this.label;
    return badge;
  }
}

function badgeFor(kind: TicketKind, ref: number, cached: CachedTicket): TicketBadge {
  const name = `${kind === "story" ? "Story" : "Task"} #${ref}`;
  if (cached.state === "missing") return new TicketBadge("not found", `${name} is not in the tracker project`, false, true);
  const { status, assignee, statusClosed } = cached.detail;
  const label = assignee ? `${status ?? "unknown"} · ${assignee}` : (status ?? "unknown");
  return new TicketBadge(label, `${name}: ${status ?? "unknown status"}, ${assignee ? `assigned to ${assignee}` : "nobody assigned"}`, statusClosed === true, false);
}

export interface TicketBadges {
  /** The editor extension that draws the badges. */
  extension: Extension;
  /** The editor's view, once it exists (the badges are fetched for its text). */
  attach(view: EditorView): void;
  /** Logged in (a token) or out (undefined): fetch for the whole text, or drop every badge. */
  setToken(token: string | undefined): void;
  /** A ticket fetched elsewhere (the panel loaded or moved it): shown at once, box followed. */
  remember(key: TicketKey, detail: TrackerTicketDetail): void;
  destroy(): void;
}

export function ticketBadges(options: { client: FolioClient; doc: LiveDocument; onTokenRejected: () => void }): TicketBadges {
  const { client, doc } = options;
  let token: string | undefined;
  let slug: string | undefined;
  let view: EditorView | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cache = new TicketCache({
    fetch: ({ slug: project, kind, ref }) => (kind === "story" ? client.tracker.story(token ?? "", project, ref) : client.tracker.task(token ?? "", project, ref)),
    classify: (error) => (error instanceof FolioError && error.status === 401 ? "rejected" : error instanceof FolioError && error.status === 404 ? "missing" : "failed"),
  });

  const redraw = () => view?.dispatch({ effects: refreshBadges.of(null) });

  /** Every line linking the ticket that has a status box gets the box its statusClosed says. */
  const followBoxes = (key: TicketKey, detail: TrackerTicketDetail) => {
    const closed = detail.statusClosed;
    // The project as the text names it now (the last look may be up to SETTLE_MS old).
    if (!view || closed === undefined || view.state.readOnly || doc.deleted || key.slug !== trackerSlug(doc.text)) return;
    const changes: { from: number; to: number; insert: string }[] = [];
    for (let at = 1; at <= view.state.doc.lines; at++) {
      const line = view.state.doc.line(at);
      const parsed = parseLine(line.text);
      if (parsed.link?.kind !== key.kind || parsed.link.ref !== key.ref || !parsed.box || parsed.box.done === closed) continue;
      changes.push({ from: line.from, to: line.to, insert: withBox(line.text, closed) });
    }
    if (changes.length > 0) view.dispatch({ changes, userEvent: "input" });
  };

  const scan = async () => {
    timer = undefined;
    const text = doc.text;
    const nextSlug = trackerSlug(text);
    if (nextSlug !== slug) {
      slug = nextSlug;
      redraw();
    }
    if (!token || !slug || !view) return;
    const keys: TicketKey[] = [];
    for (const line of text.split("\n")) {
      const link = parseLine(line).link;
      if (link) keys.push({ slug, kind: link.kind, ref: link.ref });
    }
    const outcome = await cache.fetchMissing(keys, (key, value) => {
      redraw();
      if (value.state === "found") followBoxes(key, value.detail);
    });
    if (outcome === "rejected") options.onTokenRejected();
  };

  const schedule = (delay = SETTLE_MS) => {
    clearTimeout(timer);
    timer = setTimeout(() => void scan(), delay);
  };
  const interval = setInterval(() => {
    if (token && document.visibilityState === "visible") schedule(0);
  }, REFRESH_MS);

  const decorate = (editor: EditorView): DecorationSet => {
    const builder = new RangeSetBuilder<Decoration>();
    if (!token || !slug) return builder.finish();
    for (const { from, to } of editor.visibleRanges) {
      for (let pos = from; pos <= to; ) {
        const line = editor.state.doc.lineAt(pos);
        const link = parseLine(line.text).link;
        const cached = link && cache.get({ slug, kind: link.kind, ref: link.ref });
        if (link && cached) builder.add(line.to, line.to, Decoration.widget({ widget: badgeFor(link.kind, link.ref, cached), side: 1 }));
        pos = line.to + 1;
      }
    }
    return builder.finish();
  };

  const plugin = ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(editor: EditorView) {
        this.decorations = decorate(editor);
      }
      update(update: ViewUpdate) {
        // Drawn from the cache on every change (cheap, no fetch); fetched only once the text settles.
        if (update.docChanged) schedule();
        if (update.docChanged || update.viewportChanged || update.transactions.some((tr) => tr.effects.some((effect) => effect.is(refreshBadges)))) {
          this.decorations = decorate(update.view);
        }
      }
    },
    { decorations: (instance) => instance.decorations },
  );

  return {
    extension: plugin,
    attach(editor) {
      view = editor;
      schedule(0);
    },
    setToken(next) {
      if (next === token) return;
      token = next;
      cache.clear();
      redraw();
      if (token) schedule(0);
    },
    remember(key, detail) {
      cache.put(key, detail);
      redraw();
      followBoxes(key, detail);
    },
    destroy() {
      clearTimeout(timer);
      clearInterval(interval);
      view = undefined;
    },
  };
}
