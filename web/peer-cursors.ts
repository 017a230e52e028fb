/**
 * The others' cursors and selections in the editor (docs/editor.md, "Who is here"): each person's
 * caret as a thin bar in their colour with their name above it, their selection as a tinted mark
 * (its title the name), as the decorations of peer-decorations.ts, mapped through every transaction;
 * each new list from the client library (`presence` event, cursors already mapped onto the local
 * text) replaces them. The own cursor is sent through `doc.presence.set` at most every 250 ms, and
 * only when it moved.
 */
import type { Extension } from "@codemirror/state";
import { ViewPlugin, WidgetType, type EditorView, type ViewUpdate } from "@codemirror/view";
import type { Presence, PresencePeer } from "../src/client/index.js";
import { remoteChange } from "./live-sync.js";
import { peerField, setPeers, type CaretSpec } from "./peer-decorations.js";

/** What the editor follows: a live or read-only document's presence and its event. */
export interface PresenceSource {
  readonly presence: Presence;
  on(event: "presence", listener: (others: PresencePeer[]) => void): () => void;
}

/** The least time between two cursor updates sent. */
const SEND_EVERY_MS = 250;

/**
 * A peer's caret with its name. The name shows above the line (below it on the first line, where
 * above would be cut off), and fades after a few seconds (styles.css) so that it does not hide the
 * text it stands over; it shows again whenever the peer moves (`moved`: a new widget, a new element).
 */
class PeerCaret extends WidgetType {
  constructor(readonly spec: CaretSpec) {
    super();
  }

  override eq(other: PeerCaret): boolean {
    const [a, b] = [this.spec, other.spec];
    return a.name === b.name && a.colour === b.colour && a.below === b.below && a.moved === b.moved;
  }

  toDOM(): HTMLElement {
    const caret = document.createElement("span");
    caret.className = `cm-peer-caret peer-${this.spec.colour}`;
    // The "here now" list names everyone for assistive technology; the caret is for the eyes.
    caret.setAttribute("aria-hidden", "true");
    const label = document.createElement("span");
    label.className = this.spec.below ? "cm-peer-name below" : "cm-peer-name";
    // Drawn by CSS from the attribute: the editor's DOM text stays the document's text (what a copy or a test reads).
    label.dataset["name"] = this.spec.name;
    caret.append(label);
    return caret;
  }

  override ignoreEvent(): boolean {
    return true;
  }
}

/** The others' cursors, and (`send`) this page's own cursor sent as it moves. */
export function peerCursors(source: PresenceSource, options: { send: boolean }): Extension {
  const plugin = ViewPlugin.fromClass(
    class {
      private readonly unsubscribe: () => void;
      private timer: ReturnType<typeof setTimeout> | undefined;
      private lastSentAt = 0;
      private sent = "";
      private destroyed = false;

      constructor(private readonly view: EditorView) {
        this.unsubscribe = source.on("presence", (others) => this.view.dispatch({ effects: setPeers.of(others) }));
        // Someone may be here already: their list (from the last event) is shown at once.
        queueMicrotask(() => this.destroyed || this.view.dispatch({ effects: setPeers.of(source.presence.others) }));
        if (options.send) this.schedule();
      }

      update(update: ViewUpdate): void {
        // Only a move of this person's own (not a remote change carrying the cursor along) is sent.
        if (!options.send || !update.selectionSet) return;
        if (update.transactions.every((transaction) => transaction.annotation(remoteChange))) return;
        this.schedule();
      }

      destroy(): void {
        this.destroyed = true;
        clearTimeout(this.timer);
        this.unsubscribe();
      }

      private schedule(): void {
        if (this.timer !== undefined) return;
        const wait = Math.max(0, this.lastSentAt + SEND_EVERY_MS - performance.now());
        this.timer = setTimeout(() => this.send(), wait);
      }

      private send(): void {
        this.timer = undefined;
        const { anchor, head } = this.view.state.selection.main;
        const key = `${anchor}:${head}:${this.view.state.doc.length}`;
        if (key === this.sent) return;
        this.sent = key;
        this.lastSentAt = performance.now();
        source.presence.set({ cursor: { anchor, head } });
      }
    },
  );
  return [peerField((spec) => new PeerCaret(spec)), plugin];
}
