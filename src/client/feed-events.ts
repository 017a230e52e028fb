import type { LiveEvent } from "./live-state.js";
import type { ChangeEvent } from "./types.js";

/** What a feed answer's events say to a live document. */
export interface FeedNews {
  /** The state's events, in order: each event's version seen, a deletion, a restore. */
  steps: LiveEvent[];
  /** The newest title a RENAMED event brought (as on the wire). */
  title?: string;
  /** A restore or rollback brought a title no event carries: it is read again. */
  titleStale: boolean;
}

/** The news of `events` past version `seen` (older ones were taken from an earlier answer). */
export function feedNews(events: readonly ChangeEvent[], seen: number): FeedNews {
  const news: FeedNews = { steps: [], titleStale: false };
  for (const event of events) {
    if (event.version <= seen) continue;
    news.steps.push({ type: "seen", version: event.version });
    if (event.changeType === "RENAMED" && event.title !== undefined) news.title = event.title;
    if (event.changeType === "DELETED") news.steps.push({ type: "deleted" });
    if (event.changeType === "RESTORED") news.steps.push({ type: "restored" });
    if (event.changeType === "RESTORED" || event.changeType === "ROLLED_BACK") news.titleStale = true;
  }
  return news;
}
