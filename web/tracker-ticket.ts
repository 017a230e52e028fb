/**
 * The tracker panel's view of a linked ticket: its ref and subject, status and assignee, a link to it
 * in the tracker, and the project's status columns to move it to (a list box: every column stays in
 * view, arrow keys choose one). A move the tracker refuses because the ticket changed meanwhile (its
 * optimistic lock) offers a Reload.
 */
import h from "crelt";
import { FolioError, type FolioClient, type TrackerStatus, type TrackerTicketDetail } from "../src/client/index.js";
import { ticketUrl, type TicketKind } from "./outline.js";
import type { StatusLine } from "./status-line.js";

/** Taiga's optimistic-lock rejection, passed on by the service as a 400 whose detail starts so. */
const isVersionRejection = (error: unknown) => error instanceof FolioError && error.status === 400 && (error.problem?.detail ?? "").startsWith("version:");

export interface LinkedTicket {
  detail: TrackerTicketDetail;
  kind: TicketKind;
  slug: string;
  token: string;
}

export interface TicketViewParts {
  client: FolioClient;
  status: StatusLine;
  /** The tracker's web address, for the link to the ticket; none without it. */
  trackerWeb: string | undefined;
  /** The ticket was moved (`moved`: its state now). */
  moved: (moved: TrackerTicketDetail) => void;
  /** Shows the ticket again as the tracker has it. */
  reload: () => void;
  fail: (error: unknown, what: string) => void;
}

export function ticketView({ detail, kind, slug, token }: LinkedTicket, columns: readonly TrackerStatus[], parts: TicketViewParts): HTMLElement {
  const { client, status } = parts;
  const select = h(
    "select",
    { id: "ticket-status", "aria-describedby": "ticket-summary", size: String(Math.min(Math.max(columns.length, 2), 6)) },
    ...columns.map((column) => {
      const item = h("option", { value: String(column.id) }, column.name);
      if (column.name === detail.status) item.selected = true;
      return item;
    }),
  );
  const move = h("button", { type: "button" }, "Move");
  move.addEventListener("click", () => {
    const target = Number(select.value);
    move.disabled = true;
    status.say("Moving…");
    const body = { status: target, version: detail.version ?? 0 };
    (kind === "story" ? client.tracker.moveStory(token, slug, detail.ref, body) : client.tracker.moveTask(token, slug, detail.ref, body))
      .then((moved) => {
        status.say(`Moved to ${moved.status ?? "the new column"}.`);
        parts.moved(moved);
      })
      .catch((error: unknown) => {
        move.disabled = false;
        if (isVersionRejection(error)) {
          const reload = h("button", { type: "button", onclick: () => (status.say(""), parts.reload()) }, "Reload");
          status.show("Changed meanwhile in the tracker — reload. ", reload);
        } else parts.fail(error, "Could not move the ticket");
      });
  });
  const web = parts.trackerWeb;
  return h(
    "div",
    { class: "ticket" },
    h("p", { id: "ticket-summary", class: "ticket-summary" }, h("strong", {}, `${kind === "story" ? "Story" : "Task"} #${detail.ref}`), ` ${detail.subject}`),
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
}
