/**
 * Links in the text (docs/editor.md#links): web addresses (`https://…`, `http://…`) and, with a
 * tracker configured, ticket references (`#US-12`, `#T-7` of the project `&tracker.<slug>` names)
 * are underlined and open in a new tab on Ctrl+click (Cmd+click on macOS); a plain click still
 * places the cursor, so the text stays editable. The page's Content-Security-Policy is untouched:
 * a new tab is a navigation, with no referrer and no opener.
 */
import { RangeSetBuilder, type Extension } from "@codemirror/state";
import { Decoration, EditorView, ViewPlugin, type DecorationSet, type ViewUpdate } from "@codemirror/view";
import { parseLine } from "../src/core/outline-notation.js";
import { ticketUrl, trackerSlug } from "./outline.js";

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:!?)\]}]/g;
const onMac = /Mac|iPhone|iPad|iPod/.test((globalThis as { navigator?: { platform?: string } }).navigator?.platform ?? "");
const HINT = onMac ? "Cmd+click to open" : "Ctrl+click to open";

function linkMark(href: string): Decoration {
  return Decoration.mark({ class: "cm-url", attributes: { "data-href": href, title: `${href} (${HINT})` } });
}

function links(view: EditorView, trackerWeb: string | undefined): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const slug = trackerWeb ? trackerSlug(view.state.doc.toString()) : undefined;
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = view.state.doc.lineAt(pos);
      const marks: { from: number; to: number; href: string }[] = [];
      for (const match of line.text.matchAll(URL_PATTERN)) marks.push({ from: match.index, to: match.index + match[0].length, href: match[0] });
      const ticket = slug && trackerWeb ? parseLine(line.text).link : undefined;
      if (ticket && slug && trackerWeb && !marks.some((mark) => mark.from < ticket.to && ticket.from < mark.to)) {
        marks.push({ from: ticket.from, to: ticket.to, href: ticketUrl(trackerWeb, slug, ticket) });
      }
      for (const mark of marks.sort((a, b) => a.from - b.from)) builder.add(line.from + mark.from, line.from + mark.to, linkMark(mark.href));
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

/** Clickable links; `trackerWeb` (the service's `trackerWeb`) makes ticket references links too. */
export function clickableLinks(trackerWeb?: string): Extension {
  return [
    ViewPlugin.fromClass(
      class {
        decorations: DecorationSet;
        constructor(view: EditorView) {
          this.decorations = links(view, trackerWeb);
        }
        update(update: ViewUpdate) {
          if (update.docChanged || update.viewportChanged) this.decorations = links(update.view, trackerWeb);
        }
      },
      { decorations: (plugin) => plugin.decorations },
    ),
    EditorView.domEventHandlers({
      mousedown(event) {
        if (event.button !== 0 || !(onMac ? event.metaKey : event.ctrlKey)) return false;
        const link = event.target instanceof Element ? event.target.closest<HTMLElement>(".cm-url") : null;
        const href = link?.dataset.href;
        if (!href) return false;
        event.preventDefault();
        window.open(href, "_blank", "noopener,noreferrer");
        return true;
      },
    }),
  ];
}
