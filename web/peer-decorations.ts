/**
 * The others' cursors and selections as CodeMirror decorations (docs/editor.md, "Who is here"),
 * without the DOM (peer-cursors.ts draws the carets): a selection is a tinted mark, a caret a widget at
 * the head. They live in a state field that maps them through every transaction, so a cursor stays on
 * its characters while someone types before it; each list from the client library replaces them.
 */
import { StateEffect, StateField, type EditorState, type Range } from "@codemirror/state";
import { Decoration, EditorView, type DecorationSet, type WidgetType } from "@codemirror/view";
import type { PresencePeer } from "../src/client/index.js";

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

/** What a caret is drawn from: the peer's name and colour, whether the name goes below the line (the first line), and its place (a move makes a new caret). */
export interface CaretSpec {
  name: string;
  colour: number;
  below: boolean;
  moved: string;
}

/** Replaces the others' decorations with those of a list (their cursors on the text as it is). */
export const setPeers = StateEffect.define<PresencePeer[]>();

function decorationsOf(peers: readonly PresencePeer[], state: EditorState, caretOf: (spec: CaretSpec) => WidgetType): DecorationSet {
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
    ranges.push(Decoration.widget({ widget: caretOf({ name, colour, below, moved: `${anchor}:${head}` }), side: 1 }).range(head));
  }
  return Decoration.set(ranges, true);
}

/** The field of the others' decorations, mapped through every transaction; `caretOf` makes a caret's widget. */
export function peerField(caretOf: (spec: CaretSpec) => WidgetType): StateField<DecorationSet> {
  return StateField.define<DecorationSet>({
    create: () => Decoration.none,
    update(value, transaction) {
      let next = value.map(transaction.changes);
      for (const effect of transaction.effects) if (effect.is(setPeers)) next = decorationsOf(effect.value, transaction.state, caretOf);
      return next;
    },
    provide: (field) => EditorView.decorations.from(field),
  });
}


