import { toLineOperation, type NormalizedOp } from "../core/normalized-op.js";
import type { ChangeFeedView } from "../service/change-feed.js";

/**
 * `ops` as the JSON array of their wire form (LineOperationSchema, as toLineOperation gives it),
 * made without copying the ops (test/http/ops-json.test.ts). Against the route's schema serializer,
 * paired (docs/benchmarks.md): the hot document 1.18 × the CPU per patch without it, authors at 1,000
 * 1.06 ×; in process (bench/micro/ack-path.ts, answers of ~32 KB) 271 against 289 µs per patch.
 * Keeping each lines array's JSON for the next answer paid for nothing at 1,000 authors, so it went.
 */
export function opsJson(ops: readonly NormalizedOp[]): string {
  let json = "[";
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (k > 0) json += ",";
    if (op.count === 0 && op.lines.length > 0) json += `{"op":"insert","index":${op.index},"lines":${JSON.stringify(op.lines)}}`;
    else if (op.lines.length === 0 && op.count > 0) json += `{"op":"delete","index":${op.index},"count":${op.count}}`;
    else json += `{"op":"replace","index":${op.index},"count":${op.count},"lines":${JSON.stringify(op.lines)}}`;
  }
  return json + "]";
}

/**
 * A feed answer as the JSON of ChangeFeedSchema: a diff (`fromVersion`, `ops`) or the full text
 * (`content`), its keys in the order the schema serializer always wrote them (the required
 * `currentVersion` and `events` first, then the rest), so the bytes stay what they were. Written here, not by the schema's serializer: the schema
 * is a `oneOf`, which that serializer resolves by validating the whole answer against each shape
 * first. An answer is serialized once for all its waiters (src/http/routes/feed-reply.ts, FeedReplies).
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
