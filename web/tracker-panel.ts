/**
 * The tracker panel, shown only when the service has a tracker: the login form (tracker-login.ts; the
 * session stays in sessionStorage), and for the node line under the cursor, once the cursor has
 * settled there, either "create story" / "create task" (tracker-create.ts) or the linked ticket with
 * the columns to move it to (tracker-ticket.ts). The panel owns the inline badges (ticket-badges.ts):
 * every ticket it loads or moves goes to them, and they set the status box of the lines linking it
 * after the ticket's statusClosed.
 *
 * On an encrypted document the panel first says what leaves the page readable (the project's slug,
 * the tickets' refs, and a created ticket's subject, to the service and to the tracker) and sends
 * nothing from the text, badges included, until the person agrees for this page (docs/encryption.md).
 */
import type { Extension } from "@codemirror/state";
import h from "crelt";
import { FolioError, type FolioClient, type LiveDocument, type TrackerSession } from "../src/client/index.js";
import type { BoundEditor } from "./editor.js";
import { messageOf } from "./error-message.js";
import { parseLine, trackerSlug } from "./outline.js";
import { setTrackerSession, trackerSession } from "./prefs.js";
import { replace } from "./replace-children.js";
import { statusLine } from "./status-line.js";
import { ticketBadges } from "./ticket-badges.js";
import { createActions } from "./tracker-create.js";
import { trackerLogin } from "./tracker-login.js";
import { TrackerProjects } from "./tracker-projects.js";
import { ticketView } from "./tracker-ticket.js";

const isTokenRejection = (error: unknown) => error instanceof FolioError && error.status === 401;

/** How long the cursor stays on a line before the panel shows it. */
const SETTLE_MS = 250;

export interface TrackerPanel {
  element: HTMLElement;
  /** The editor extension that draws the inline badges. */
  extension: Extension;
  /** The editor, once it exists: the badges are fetched for its text, a created ticket's ref written into it. */
  attach(editor: BoundEditor): void;
  /** The cursor moved to `line`: the panel shows it once it has settled. */
  followLine(line: number): void;
  destroy(): void;
}

export function trackerPanel({ client, doc, trackerWeb, encrypted }: { client: FolioClient; doc: LiveDocument; trackerWeb: string | undefined; encrypted: boolean }): TrackerPanel {
  let editor: BoundEditor | undefined;
  const badges = ticketBadges({ client, doc, onTokenRejected: () => logOut("The tracker session ended: log in again.") });
  const body = h("div", { class: "tracker-body" });
  const status = statusLine("panel-status");
  const element = h("section", { class: "panel tracker", "aria-labelledby": "tracker-heading" }, h("h2", { id: "tracker-heading", tabindex: "-1" }, "Tracker"), body, status.element);
  let session = trackerSession();
  const projects = new TrackerProjects(client, () => session?.userId ?? 0);
  let currentLine = 0;
  let generation = 0;
  // Nothing from an encrypted document's text goes out before the person agrees (per page).
  let agreed = !encrypted;
  const agree = () => {
    agreed = true;
    badges.setToken(session?.authToken);
    render();
  };
  const plainTextWarning = () => [
    h(
      "p",
      { class: "warning" },
      "This document is encrypted, but the tracker is not: to show and create tickets, the panel sends the project name (",
      h("code", {}, "&tracker.<slug>"),
      "), the ticket numbers of its lines and a new ticket's words to this service and to the tracker in plain text.",
    ),
    h("button", { type: "button", onclick: agree }, "Use the tracker on this page anyway"),
  ];

  const render = () => {
    if (!agreed) replace(body, ...plainTextWarning());
    else if (!session) replace(body, trackerLogin(client, status, loggedIn));
    else void showLine(currentLine);
  };
  // The panel's content is replaced after a login or a created ticket, and the focus with it: the
  // keys go back to the text (unless the person put the focus somewhere else meanwhile).
  const refocus = () => {
    const active = document.activeElement;
    if (!active || active === document.body || element.contains(active)) editor?.view.focus();
  };
  const loggedIn = (created: TrackerSession) => {
    session = created;
    setTrackerSession(created);
    if (agreed) badges.setToken(created.authToken);
    status.say(`Logged in as ${created.fullName ?? created.username}.`);
    render();
    refocus();
  };
  const logOut = (message = "") => {
    session = undefined;
    setTrackerSession(undefined);
    badges.setToken(undefined);
    projects.forgetProjects();
    render();
    status.say(message);
  };
  const fail = (error: unknown, what: string) => {
    if (isTokenRejection(error)) logOut("The tracker session ended: log in again.");
    else status.say(`${what}: ${messageOf(error)}`);
  };
  const again = () => void showLine(currentLine);

  const showLine = async (line: number) => {
    if (line !== currentLine) status.say("");
    currentLine = line;
    const mine = ++generation;
    if (!session || !agreed) return;
    const token = session.authToken;
    const text = doc.text.split("\n")[line] ?? "";
    const parsed = parseLine(text);
    const slug = trackerSlug(doc.text);
    const header = h("p", { class: "muted" }, `Logged in as ${session.fullName ?? session.username}. `, h("button", { type: "button", class: "link-button", onclick: () => logOut("Logged out.") }, "Log out"));
    if (!slug) {
      replace(body, header, h("p", {}, "Name the tracker project anywhere in the text with ", h("code", {}, "&tracker.<slug>"), "."));
      return;
    }
    if (parsed.blank) {
      replace(body, header, h("p", {}, `Project ${slug}. Put the cursor on a node line to link it to a story or task.`));
      return;
    }
    if (!parsed.link) {
      replace(body, header, ...createActions({ line, text, slug, token }, { client, doc, editor: () => editor, projects, status, fail, done: () => (again(), refocus()), encrypted }));
      return;
    }
    const link = parsed.link;
    replace(body, header, h("p", { class: "muted" }, `Loading #${link.ref}…`));
    try {
      const [detail, columns] = await Promise.all([
        link.kind === "story" ? client.tracker.story(token, slug, link.ref) : client.tracker.task(token, slug, link.ref),
        projects.columns(token, slug, link.kind),
      ]);
      if (mine !== generation) return;
      const moved = (state: typeof detail) => (badges.remember({ slug, kind: link.kind, ref: detail.ref }, state), again());
      replace(body, header, ticketView({ detail, kind: link.kind, slug, token }, columns, { client, status, trackerWeb, moved, reload: again, fail }));
      badges.remember({ slug, kind: link.kind, ref: link.ref }, detail);
    } catch (error) {
      if (mine !== generation) return;
      replace(body, header);
      fail(error, `Could not load #${link.ref}`);
    }
  };

  // A linked line is shown again only when its link changes (not per keystroke: no refetch, no jump).
  let lastShown = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const followLine = (line: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const text = doc.text.split("\n")[line] ?? "";
      const link = parseLine(text).link;
      const key = `${line}\u0000${link ? `${link.kind}-${link.ref}` : text}\u0000${trackerSlug(doc.text) ?? ""}`;
      if (key === lastShown) return;
      lastShown = key;
      void showLine(line);
    }, SETTLE_MS);
  };

  if (agreed) badges.setToken(session?.authToken);
  render();
  return {
    element,
    extension: badges.extension,
    attach(bound) {
      editor = bound;
      badges.attach(bound.view);
    },
    followLine,
    destroy: () => badges.destroy(),
  };
}
