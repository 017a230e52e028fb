/**
 * What the tracker panel looks up once per page: the id of each project the user is a member of (by
 * its slug; forgotten on log-out) and the status columns of a project's stories and tasks.
 */
import type { FolioClient, TrackerStatus } from "../src/client/index.js";
import type { TicketKind } from "./outline.js";

export class TrackerProjects {
  readonly #ids = new Map<string, number>();
  readonly #columns = new Map<string, TrackerStatus[]>();
  readonly #client: FolioClient;
  readonly #userId: () => number;

  /** `userId`: the logged-in user's, whose projects are listed. */
  constructor(client: FolioClient, userId: () => number) {
    this.#client = client;
    this.#userId = userId;
  }

  /** The project's id; an error when the user is no member of it. */
  async projectId(token: string, slug: string): Promise<number> {
    const known = this.#ids.get(slug);
    if (known !== undefined) return known;
    const list = await this.#client.tracker.projects(token, this.#userId());
    for (const project of list) this.#ids.set(project.slug, project.id);
    const found = this.#ids.get(slug);
    if (found === undefined) throw new Error(`you are no member of a tracker project "${slug}"`);
    return found;
  }

  /** The columns a story or task of the project can be moved to. */
  async columns(token: string, slug: string, kind: TicketKind): Promise<TrackerStatus[]> {
    const key = `${kind}:${slug}`;
    const known = this.#columns.get(key);
    if (known) return known;
    const list = kind === "story" ? await this.#client.tracker.storyStatuses(token, slug) : await this.#client.tracker.taskStatuses(token, slug);
    this.#columns.set(key, list);
    return list;
  }

  /** Log-out: another user may be a member of other projects. */
  forgetProjects(): void {
    this.#ids.clear();
  }
}
