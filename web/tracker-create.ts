/**
 * The tracker panel on a node line that links no ticket: "Create story" / "Create task", which create
 * the ticket with the node's words as its subject and write its ref onto the line. A task belongs to
 * the story of the nearest ancestor node that links one, or else of the nearest story line above.
 */
import h from "crelt";
import type { FolioClient, LiveDocument } from "../src/client/index.js";
import type { BoundEditor } from "./editor.js";
import { nodeSubject, storyAbove, withLink, type TicketKind } from "./outline.js";
import type { StatusLine } from "./status-line.js";
import type { TrackerProjects } from "./tracker-projects.js";

/** The unlinked node line under the cursor, in the project the text names. */
export interface UnlinkedLine {
  line: number;
  text: string;
  slug: string;
  token: string;
}

export interface CreateParts {
  client: FolioClient;
  doc: LiveDocument;
  /** The editor the ref is written through (as a local edit). */
  editor: () => BoundEditor | undefined;
  projects: TrackerProjects;
  status: StatusLine;
  fail: (error: unknown, what: string) => void;
  /** The ticket was created, or could not be: the panel shows the cursor's line again. */
  done: () => void;
  /** The document is encrypted: the panel says that the subject leaves it in plain text. */
  encrypted: boolean;
}

/** What the panel shows for the line: its words and the two buttons. */
export function createActions({ line, text, slug, token }: UnlinkedLine, parts: CreateParts): (HTMLElement | undefined)[] {
  const { client, doc, status } = parts;

  const create = async (kind: TicketKind) => {
    const lines = doc.text.split("\n");
    const project = await parts.projects.projectId(token, slug);
    const subject = nodeSubject(text);
    let ticket;
    if (kind === "story") ticket = await client.tracker.createStory(token, { project, subject });
    else {
      const story = storyAbove(lines, line);
      if (!story) throw new Error("no story node above this line");
      const detail = await client.tracker.story(token, slug, story.ref);
      ticket = await client.tracker.createTask(token, { project, subject, userStory: detail.id });
    }
    const written = parts.editor()?.updateLine(line, (current) => current === text, (current) => withLink(current, kind, ticket.ref)) ?? false;
    status.say(
      written
        ? `Created ${kind === "story" ? "story" : "task"} #${ticket.ref}.`
        : `Created #${ticket.ref}, but the line changed meanwhile: add ${kind === "story" ? "#US" : "#T"}-${ticket.ref} to it yourself.`,
    );
  };

  const subject = nodeSubject(text);
  const hasStory = storyAbove(doc.text.split("\n"), line) !== undefined;
  const action = (kind: TicketKind) => (event: Event) => {
    const button = event.currentTarget as HTMLButtonElement;
    button.disabled = true;
    status.say("Creating…");
    create(kind)
      .catch((error: unknown) => parts.fail(error, "Could not create the ticket"))
      .finally(parts.done);
  };
  return [
    h("p", {}, `Line ${line + 1}: `, h("q", {}, subject || "(no text)")),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", disabled: subject === "", onclick: action("story") }, "Create story"),
      h("button", { type: "button", disabled: subject === "" || !hasStory, onclick: action("task"), title: hasStory ? undefined : "needs a story node above" }, "Create task"),
    ),
    hasStory ? undefined : h("p", { class: "muted" }, "A task needs a story node above it."),
    // A ticket's subject is the one place where words of an encrypted line leave the browser readable (docs/encryption.md).
    parts.encrypted ? h("p", { class: "warning" }, "This document is encrypted, but the tracker is not: a ticket gets the line's words in plain text.") : undefined,
  ];
}
