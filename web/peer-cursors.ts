/**
 * The others' cursors and selections in the editor (docs/editor.md, "Who is here"): each person's
 * caret as a thin bar in their colour with their name above it, their selection as a tinted mark
 * (its title the name).
 * The decorations live in a state field that maps them through every transaction, so a cursor stays
 * on its characters while someone types before it; each new list from the client library
 * (`presence` event, cursors already mapped onto the local text) replaces them. The own cursor is
 * sent through `doc.presence.set` at most every 250 ms, and only when it moved.
 */
import { StateEffect, StateField, type EditorState, type Extension, type Range } from "@codemirror/state";
import { Decoration, EditorView, ViewPlugin, WidgetType, type DecorationSet, type ViewUpdate } from "@codemirror/view";
import type { Presence, PresencePeer } from "../src/client/index.js";
import { remoteChange } from "./live-sync.js";

/** What the editor follows: a live or read-only document's presence and its event. */
export interface PresenceSource {
  readonly presence: Presence;
  on(event: "presence", listener: (others: PresencePeer[]) => void): () => void;
}

/** How many colours the peers take in turn (styles.css, `.peer-0` … `.peer-7`). */
export const PEER_COLOURS = 8;

/** A peer's colour: the same on every page for one client id (a hash of it). */
export function colourOf(clientId: string): number {
  let hash = 0;
  for (let k = 0; k < clientId.length; k++) hash = (hash * 31 + clientId.charCodeAt(k)) >>> 0;
  return hash % PEER_COLOURS;
}

/** What a peer is called on the page: its name, or a stand-in. */
export const nameOf = (peer: PresencePeer): string => peer.displayName ?? (peer.unreadable ? "Someone (unreadable)" : peer.role === "viewer" ? "Anonymous viewer" : "Anonymous");

/** The least time between two cursor updates sent. */
const SEND_EVERY_MS = 250;

/**
 * A peer's caret with its name. The name shows above the line (below it on the first line, where
 * above would be cut off), and fades after a few seconds (styles.css) so that it does not hide the
 * text it stands over; it shows again whenever the peer moves (`moved`: a new widget, a new element).
 */
class PeerCaret extends WidgetType {
  constructor(
    readonly name: string,
    readonly colour: number,
    readonly below: boolean,
    readonly moved: string,
  ) {
    super();
  }

  override eq(other: PeerCaret): boolean {
    return other.name === this.name && other.colour === this.colour && other.below === this.below && other.moved === this.moved;
  }

  toDOM(): HTMLElement {
    const caret = document.createElement("span");
    caret.className = `cm-peer-caret peer-${this.colour}`;
    // The "here now" list names everyone for assistive technology; the caret is for the eyes.
    caret.setAttribute("aria-hidden", "true");
    const label = document.createElement("span");
    label.className = this.below ? "cm-peer-name below" : "cm-peer-name";
    // Drawn by CSS from the attribute: the editor's DOM text stays the document's text (what a copy or a test reads).
    label.dataset["name"] = this.name;
    caret.append(label);
    return caret;
  }

  override ignoreEvent(): boolean {
    return true;
  }
}

/** Replaces the others' decorations with those of a list (their cursors on the text as it is). */
export const setPeers = StateEffect.define<PresencePeer[]>();

function decorationsOf(peers: readonly PresencePeer[], state: EditorState): DecorationSet {
  const length = state.doc.length;
  const clamp = (pos: number) => Math.max(0, Math.min(pos, length));
  const ranges: Array<Range<Decoration>> = [];
  for (const peer of peers) {
    if (!peer.cursor) continue;
    const colour = colourOf(peer.clientId);
    const name = nameOf(peer);
    const anchor = clamp(peer.cursor.anchor);
    const head = clamp(peer.cursor.head);
    if (anchor !== head) {
      ranges.push(Decoration.mark({ class: `cm-peer-selection peer-${colour}`, attributes: { title: name } }).range(Math.min(anchor, head), Math.max(anchor, head)));
    }
    const below = state.doc.lineAt(head).number === 1;
    ranges.push(Decoration.widget({ widget: new PeerCaret(name, colour, below, `${anchor}:${head}`), side: 1 }).range(head));
  }
  return Decoration.set(ranges, true);
}

/** The others' decorations, mapped through every transaction. */
export const peerField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, transaction) {
    let next = value.map(transaction.changes);
    for (const effect of transaction.effects) if (effect.is(setPeers)) next = decorationsOf(effect.value, transaction.state);
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

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
  return [peerField, plugin];
}
