/** What a document's page does as the browser leaves it, or brings it back from the back/forward cache. */

/** Calls `close` when the page goes away; a page restored from the back/forward cache had it closed, so it opens afresh. */
export function closeWithPage(close: () => void): void {
  window.addEventListener("pagehide", close);
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) window.location.reload();
  });
}

/** The browser asks before the page is closed while `unsafe()` holds (edits that live in this page only). */
export function askBeforeClosing(unsafe: () => boolean): void {
  window.addEventListener("beforeunload", (event) => {
    if (unsafe()) event.preventDefault();
  });
}
