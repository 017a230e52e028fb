/**
 * The tracker panel, shown only when the service has a tracker: the login form (the token stays in
 * sessionStorage), and for the node line under the cursor either "create story" / "create task" or
 * the linked ticket's status, assignee, a link to the tracker and a menu of the project's status
 * columns. Every ticket the panel loads or moves goes to the inline badges (web/ticket-badges.ts),
 * which also set the status box of the lines linking it after the ticket's statusClosed.
 */
import h from "crelt";
import type { Extension } from "@codemirror/state";
import { FolioError, type FolioClient, type LiveDocument, type TrackerSession, type TrackerStatus, type TrackerTicketDetail } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { replace } from "./replace-children.js";
import type { BoundEditor } from "./editor.js";
import { nodeSubject, parseLine, storyAbove, ticketUrl, trackerSlug, withLink, type TicketKind } from "./outline.js";
import { setTrackerSession, trackerSession } from "./prefs.js";
import { ticketBadges } from "./ticket-badges.js";

interface Context {
  client: FolioClient;
  doc: LiveDocument;
  trackerWeb: string | undefined;
}

/** Taiga's optimistic-lock rejection, passed on by the service as a 400 whose detail starts so. */
const isVersionRejection = (error: unknown) => error instanceof FolioError && error.status === 400 && (error.problem?.detail ?? "").startsWith("version:");
const isTokenRejection = (error: unknown) => error instanceof FolioError && error.status === 401;

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

export function trackerPanel(context: Context): TrackerPanel {
  const { client, doc } = context;
  let editor: BoundEditor | undefined;
  const badges = ticketBadges({ client, doc, onTokenRejected: () => logOut("The tracker session ended: log in again.") });
  const body = h("div", { class: "tracker-body" });
  const status = h("p", { class: "panel-status", role: "status", "aria-live": "polite" });
  const element = h("section", { class: "panel tracker", "aria-labelledby": "tracker-heading" }, h("h2", { id: "tracker-heading", tabindex: "-1" }, "Tracker"), body, status);
  const projects = new Map<string, number>();
  const statuses = new Map<string, TrackerStatus[]>();
  let session = trackerSession();
  let currentLine = 0;
  let generation = 0;

  const logOut = (message = "") => {
    session = undefined;
    setTrackerSession(undefined);
    badges.setToken(undefined);
    projects.clear();
    render();
    status.textContent = message;
  };

  const loginForm = () => {
    const user = h("input", { id: "tracker-user", name: "username", autocomplete: "username", required: true, maxlength: "255" });
    const password = h("input", { id: "tracker-password", name: "password", type: "password", autocomplete: "current-password", required: true, maxlength: "255" });
    const submit = h("button", { type: "submit" }, "Log in to the tracker");
    const form = h(
      "form",
      { class: "tracker-login" },
      h("label", { for: "tracker-user" }, "Tracker user"),
      user,
      h("label", { for: "tracker-password" }, "Password"),
      password,
      submit,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      submit.disabled = true;
      status.textContent = "Logging in…";
      client.tracker
        .login({ username: user.value, password: password.value })
        .then((created: TrackerSession) => {
          session = created;
          setTrackerSession(created);
          badges.setToken(created.authToken);
          status.textContent = `Logged in as ${created.fullName ?? created.username}.`;
          render();
        })
        .catch((error: unknown) => {
          status.textContent = `Login failed: ${messageOf(error)}`;
          submit.disabled = false;
        });
    });
    return form;
  };

  const projectId = async (token: string, slug: string): Promise<number> => {
    const known = projects.get(slug);
    if (known !== undefined) return known;
    const list = await client.tracker.projects(token, session?.userId ?? 0);
    for (const project of list) projects.set(project.slug, project.id);
    const found = projects.get(slug);
    if (found === undefined) throw new Error(`you are no member of a tracker project "${slug}"`);
    return found;
  };

  const columns = async (token: string, slug: string, kind: TicketKind): Promise<TrackerStatus[]> => {
    const key = `${kind}:${slug}`;
    const known = statuses.get(key);
    if (known) return known;
    const list = kind === "story" ? await client.tracker.storyStatuses(token, slug) : await client.tracker.taskStatuses(token, slug);
    statuses.set(key, list);
    return list;
  };

  const fail = (error: unknown, what: string) => {
    if (isTokenRejection(error)) logOut("The tracker session ended: log in again.");
    else status.textContent = `${what}: ${messageOf(error)}`;
  };

  const create = async (kind: TicketKind, line: number, text: string, slug: string, token: string) => {
    const lines = doc.text.split("\n");
    const project = await projectId(token, slug);
    const subject = nodeSubject(text);
    let ticket;
    if (kind === "story") ticket = await client.tracker.createStory(token, { project, subject });
    else {
      const story = storyAbove(lines, line);
      if (!story) throw new Error("no story node above this line");
      const detail = await client.tracker.story(token, slug, story.ref);
      ticket = await client.tracker.createTask(token, { project, subject, userStory: detail.id });
    }
    const written = editor?.updateLine(line, (current) => current === text, (current) => withLink(current, kind, ticket.ref)) ?? false;
    status.textContent = written
      ? `Created ${kind === "story" ? "story" : "task"} #${ticket.ref}.`
      : `Created #${ticket.ref}, but the line changed meanwhile: add ${kind === "story" ? "#US" : "#T"}-${ticket.ref} to it yourself.`;
  };

  const ticketView = (detail: TrackerTicketDetail, kind: TicketKind, slug: string, token: string, options: TrackerStatus[]) => {
    const select = h(
      "select",
      // A list box rather than a drop-down: every column stays in view; arrow keys choose one.
      { id: "ticket-status", "aria-describedby": "ticket-summary", size: String(Math.min(Math.max(options.length, 2), 6)) },
      ...options.map((option) => {
        const item = h("option", { value: String(option.id) }, option.name);
        if (option.name === detail.status) item.selected = true;
        return item;
      }),
    );
    const move = h("button", { type: "button" }, "Move");
    move.addEventListener("click", () => {
      const target = Number(select.value);
      move.disabled = true;
      status.textContent = "Moving…";
      const body = { status: target, version: detail.version ?? 0 };
      (kind === "story" ? client.tracker.moveStory(token, slug, detail.ref, body) : client.tracker.moveTask(token, slug, detail.ref, body))
        .then((moved) => {
          status.textContent = `Moved to ${moved.status ?? "the new column"}.`;
          badges.remember({ slug, kind, ref: detail.ref }, moved);
          void showLine(currentLine);
        })
        .catch((error: unknown) => {
          move.disabled = false;
          if (isVersionRejection(error)) {
            const reload = h("button", { type: "button", onclick: () => ((status.textContent = ""), void showLine(currentLine)) }, "Reload");
            replace(status, "Changed meanwhile in the tracker — reload. ", reload);
          } else fail(error, "Could not move the ticket");
        });
    });
    const web = context.trackerWeb;
    return h(
      "div",
      { class: "ticket" },
      h(
        "p",
        { id: "ticket-summary", class: "ticket-summary" },
        h("strong", {}, `${kind === "story" ? "Story" : "Task"} #${detail.ref}`),
        ` ${detail.subject}`,
      ),
      h(
        "dl",
        { class: "ticket-facts" },
        h("dt", {}, "Status"),
        h("dd", { class: "ticket-status", "data-closed": String(detail.statusClosed ?? false) }, detail.status ?? "unknown"),
        h("dt", {}, "Assignee"),
        h("dd", {}, detail.assignee ?? "nobody"),
      ),
      h("label", { for: "ticket-status" }, "Move to column"),
      h("div", { class: "row" }, select, move),
      web ? h("a", { href: ticketUrl(web, slug, { kind, ref: detail.ref }), target: "_blank", rel: "noopener noreferrer" }, "Open in the tracker") : undefined,
    );
  };

  const showLine = async (line: number) => {
    if (line !== currentLine) status.textContent = "";
    currentLine = line;
    const mine = ++generation;
    if (!session) return;
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
      const subject = nodeSubject(text);
      const hasStory = storyAbove(doc.text.split("\n"), line) !== undefined;
      const action = (kind: TicketKind) => (event: Event) => {
        const button = event.currentTarget as HTMLButtonElement;
        button.disabled = true;
        status.textContent = "Creating…";
        create(kind, line, text, slug, token)
          .catch((error: unknown) => fail(error, "Could not create the ticket"))
          .finally(() => void showLine(currentLine));
      };
      replace(
        body,
        header,
        h("p", {}, `Line ${line + 1}: `, h("q", {}, subject || "(no text)")),
        h(
          "div",
          { class: "row" },
          h("button", { type: "button", disabled: subject === "", onclick: action("story") }, "Create story"),
          h("button", { type: "button", disabled: subject === "" || !hasStory, onclick: action("task"), title: hasStory ? undefined : "needs a story node above" }, "Create task"),
        ),
        hasStory ? undefined : h("p", { class: "muted" }, "A task needs a story node above it."),
      );
      return;
    }
    const link = parsed.link;
    replace(body, header, h("p", { class: "muted" }, `Loading #${link.ref}…`));
    try {
      const [detail, options] = await Promise.all([
        link.kind === "story" ? client.tracker.story(token, slug, link.ref) : client.tracker.task(token, slug, link.ref),
        columns(token, slug, link.kind),
      ]);
      if (mine !== generation) return;
      replace(body, header, ticketView(detail, link.kind, slug, token, options));
      badges.remember({ slug, kind: link.kind, ref: link.ref }, detail);
    } catch (error) {
      if (mine !== generation) return;
      replace(body, header);
      fail(error, `Could not load #${link.ref}`);
    }
  };

  function render() {
    if (!session) replace(body, loginForm());
    else void showLine(currentLine);
  }
  // The panel follows the cursor's line, but only once the line has settled (not per keystroke).
  let lastShown = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const followLine = (line: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // A linked line is shown again only when its link changes (not per keystroke: no refetch, no jump).
      const text = doc.text.split("\n")[line] ?? "";
      const link = parseLine(text).link;
      const key = `${line}\u0000${link ? `${link.kind}-${link.ref}` : text}\u0000${trackerSlug(doc.text) ?? ""}`;
      if (key === lastShown) return;
      lastShown = key;
      void showLine(line);
    }, 250);
  };

  badges.setToken(session?.authToken);
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
