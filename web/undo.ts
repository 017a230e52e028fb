/**
 * Undo and redo of the local author's own edits only: remote edits are never undone, and the
 * undo steps are transformed over them (each step mapped over the remote change, the remote change
 * mapped over each step on its way down the stack), so that an undo after a co-author's edit
 * reverts exactly one's own change where it now is. Typing within a short pause is one step.
 * Pure state logic on @codemirror/state; editor.ts binds it to keys.
 */
import type { ChangeSet, EditorState, Transaction, TransactionSpec } from "@codemirror/state";

const GROUP_MS = 600;

export class LocalHistory {
  #undo: ChangeSet[] = [];
  #redo: ChangeSet[] = [];
  #lastAt = -Infinity;
  constructor(private readonly limit = 200) {}

  /** Records a transaction of the editor: `kind` says whose change it was, or that it was an undo/redo. */
  record(tr: Transaction, kind: "local" | "remote" | "undo" | "redo", now: number): void {
    if (!tr.docChanged) return;
    if (kind === "remote") {
      this.#undo = transform(this.#undo, tr.changes);
      this.#redo = transform(this.#redo, tr.changes);
      return;
    }
    const inverse = tr.changes.invert(tr.startState.doc);
    if (kind === "undo") this.#redo.push(inverse);
    else if (kind === "redo") this.#undo.push(inverse);
    else {
      this.#redo = [];
      const last = this.#undo.at(-1);
      if (last && now - this.#lastAt < GROUP_MS) this.#undo[this.#undo.length - 1] = inverse.compose(last);
      else this.#undo.push(inverse);
      this.#lastAt = now;
      if (this.#undo.length > this.limit) this.#undo.shift();
    }
    if (kind !== "local") this.#lastAt = -Infinity;
  }

  undo(state: EditorState): TransactionSpec | undefined {
    return step(this.#undo, state);
  }

  redo(state: EditorState): TransactionSpec | undefined {
    return step(this.#redo, state);
  }
}

function step(stack: ChangeSet[], state: EditorState): TransactionSpec | undefined {
  const changes = stack.pop();
  if (!changes || changes.length !== state.doc.length) return undefined;
  return { changes, scrollIntoView: true };
}

/** Maps a stack of steps (the last applies to the current text) over a change of the current text. */
function transform(stack: ChangeSet[], change: ChangeSet): ChangeSet[] {
  const out = new Array<ChangeSet>(stack.length);
  let other = change;
  for (let k = stack.length - 1; k >= 0; k--) {
    const own = stack[k]!;
    out[k] = own.map(other);
    other = other.map(own, true);
  }
  return out;
}

