import { toLineOperation, type NormalizedOp } from "../core/normalized-op.js";
import type { ChangeFeedView } from "../service/change-feed.js";

/**
 * The JSON of each lines array written so far, while the array lives. An answer's ops share the
 * lines arrays of the versions they are composed of (src/core/ops-builder.ts, addShared), so the
 * acknowledgements of authors on one document, each carrying the composed ops of every version
 * since its base, escape each line once instead of once per answer.
 */
const linesJson = new WeakMap<readonly string[], string>();

function jsonOfLines(lines: readonly string[]): string {
  let json = linesJson.get(lines);
  if (json === undefined) {
    json = JSON.stringify(lines);
    linesJson.set(lines, json);
  }
  return json;
}

/**
 * `ops` as the JSON array of their wire form (LineOperationSchema, as toLineOperation gives it),
 * made without copying the ops and with each lines array's JSON reused (test/http/ops-json.test.ts).
 * Measured with bench/micro/ack-path.ts (answers of ~32 KB, as for an author among 1,000): the
 * composition and this take a median 275 µs per patch against 321 µs through the schema's
 * serializer (5 runs each, garbage collection included).
 */
export function opsJson(ops: readonly NormalizedOp[]): string {
  let json = "[";
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (k > 0) json += ",";
    if (op.count === 0 && op.lines.length > 0) json += `{"op":"insert","index":${op.index},"lines":${jsonOfLines(op.lines)}}`;
    else if (op.lines.length === 0 && op.count > 0) json += `{"op":"delete","index":${op.index},"count":${op.count}}`;
    else json += `{"op":"replace","index":${op.index},"count":${op.count},"lines":${jsonOfLines(op.lines)}}`;
  }
  return json + "]";
}

/**
 * A feed answer as the JSON of ChangeFeedSchema: a diff (`fromVersion`, `ops`) or the full text
 * (`content`), its keys in the order the schema serializer always wrote them (the required
 * `currentVersion` and `events` first, then the rest), so the bytes stay what they were. Written here, not by the schema's serializer: the schema
 * is a `oneOf`, which that serializer resolves by validating the whole answer against each shape
 * first. The ops go through JSON.stringify rather than opsJson: an answer is serialized once for
 * all its waiters (src/http/routes/feed-reply.ts, FeedReplies), so the lines' JSON would rarely be met again.
 */
export function changeFeedJson(answer: ChangeFeedView): string {
  const events = JSON.stringify(answer.events);
  if (answer.ops !== undefined && answer.fromVersion !== undefined) {
    const ops = JSON.stringify(answer.ops.map(toLineOperation));
    return `{"currentVersion":${answer.currentVersion},"events":${events},"fromVersion":${answer.fromVersion},"ops":${ops}}`;
  }
  if (answer.content === undefined) throw new Error("a feed answer carries either ops from a version or the content");
  return `{"currentVersion":${answer.currentVersion},"events":${events},"content":${JSON.stringify(answer.content)}}`;
}
