/**
 * The acknowledgement path of a stale patch, in-process: each patch adds a one-line version, the
 * writer extends the composition kept for the patch's base (8 bases in use, `LAG` versions back,
 * as with 1,000 authors on one document) and the answer is serialized, through the schema's
 * serializer (`schema`) or by hand (`by-hand`, src/http/ops-json.ts). Prints CPU time per patch,
 * garbage collection included. `npx tsx bench/micro/ack-path.ts schema|by-hand` (not part of
 * `npm run bench`; pin it with `taskset -c 0` and compare medians of several runs).
 */
import fastJsonStringify from "fast-json-stringify";
import { ContentPatchResult } from "../../src/api/content.js";
import { composeChain } from "../../src/core/compose-ops.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { opsJson } from "../../src/http/ops-json.js";

const mode = process.argv[2] === "schema" ? "schema" : "by-hand";
const AUTHORS = 1000;
const LAG = 800;
const WARMUP = 2000;
const PATCHES = 20_000;
const CHECKSUM = `sha256:${"0".repeat(64)}`;
const schemaSerializer = fastJsonStringify(ContentPatchResult as never) as (value: unknown) => string;

const versions: NormalizedOp[][] = [];
const kept = new Map<number, { through: number; ops: NormalizedOp[] }>();
let bytes = 0;
let started = process.cpuUsage();
for (let patch = 0; patch < WARMUP + PATCHES; patch++) {
  if (patch === WARMUP) started = process.cpuUsage();
  const author = (patch * 7919) % AUTHORS;
  versions.push([{ index: author, count: 1, lines: [`author ${author} run 1 seq ${patch}`] }]);
  const head = versions.length;
  const base = Math.max(0, head - LAG - (patch % 8));
  const known = kept.get(base);
  const ops = composeChain(known ? [known.ops, ...versions.slice(known.through, head)] : versions.slice(base, head));
  kept.delete(base);
  kept.set(base, { through: head, ops });
  if (kept.size > 8) kept.delete(kept.keys().next().value!);
  const body =
    mode === "schema"
      ? schemaSerializer({ version: head, opsSinceBase: ops.map(toLineOperation), checksum: CHECKSUM })
      : `{"version":${head},"opsSinceBase":${opsJson(ops)},"checksum":"${CHECKSUM}"}`;
  bytes += Buffer.byteLength(body);
}
const used = process.cpuUsage(started);
process.stdout.write(`${mode}: ${((used.user + used.system) / PATCHES).toFixed(1)} µs of CPU per patch; answers of ${Math.round(bytes / (WARMUP + PATCHES))} bytes on average\n`);
