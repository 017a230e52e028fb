import type { FolioClient } from "./http.js";
import type { LineCodec } from "./line-codec.js";
import { validateOps } from "../core/validate-ops.js";

/** Thrown instead of sending: the document's key changed, and this link's key no longer opens its title. */
export class KeyLostError extends Error {
  constructor() {
    super("the document's key changed: this link's key no longer opens it, and nothing more is sent");
    this.name = "KeyLostError";
  }
}

/**
 * Whether the key of an encrypted document may still be the one this client seals with
 * (docs/encryption.md, "A stale key never writes"). Asked before every attempt of a patch: the
 * feed since the confirmed version at once (`wait=0`). Nothing new (204), or only content patches
 * whose lines open, and the key is the one the text was read with. A whole replacement (an UPDATED
 * event without a clientId: a PUT, which is how a key changes), a restore or rollback, a compacted
 * answer or a line that does not open, and the title decides: it is read, and if it does not open
 * the key is lost.
 */
export async function keyStillOpens(client: FolioClient, id: string, codec: LineCodec, since: number, signal: AbortSignal): Promise<boolean> {
  if (!codec.encrypted) return true;
  const answer = await client.changes(id, { since, wait: 0 }, signal);
  if (answer === null) return true;
  const ops = answer.ops ? validateOps(answer.ops) : undefined;
  const replaced = answer.events.some((event) => (event.changeType === "UPDATED" && event.clientId === undefined) || event.changeType === "RESTORED" || event.changeType === "ROLLED_BACK");
  const unreadable = !ops?.ok || codec.decodeOps(ops.ops).some((op) => op.lines.some((line) => codec.isUnreadable(line)));
  if (!replaced && !unreadable) return true;
  const document = await client.getDocument(id, signal);
  return !codec.isUnreadable(codec.decodeTitle(document.title));
}
