/**
 * Where a service's CPU goes, from `perf record -g` of a process started with `--perf-basic-prof`:
 * the share of samples per category (docs/benchmarks.md, "Where the service's CPU time goes").
 *
 *   perf record -F 1999 -g -p <pid> -o perf.data -- sleep 30
 *   perf script -i perf.data | npx tsx bench/perf-breakdown.ts [--detail "<category>"]
 *
 * A sample counts as native work recognized anywhere in its stack (GC, JIT, SQLite, syscalls: none
 * of them calls back into JavaScript), else by its innermost JavaScript frame's file. With
 * `--detail`, that category's samples are listed by their innermost frame of dist/ (the service's
 * code). JIT code moves, and perf's map may then name a function whose code was there before; the
 * file of the frame below it tells.
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

const NATIVE: [string, RegExp][] = [
  ["GC", /v8::internal::(Heap::|Scavenger|MarkCompact|Sweeper|IncrementalMarking|MinorGC|ConcurrentMarking|MarkingVisitor|MarkingBarrier)/],
  ["JIT compile", /OptimizingCompileDispatcher|v8::internal::compiler::|maglev::/],
  ["WAL flush (fdatasync)", /fdatasync/],
  ["SQLite commit (WAL frames, checkpoint)", /sqlite3VdbeHalt|sqlite3WalCheckpoint|pagerWalFrames|sqlite3PagerCommit|sqlite3BtreeCommit/],
  ["SQLite statements", /sqlite3_step|sqlite3_prepare|sqlite3_reset|sqlite3_bind|sqlite3_column|Statement::/],
  ["socket writes (syscall)", /writev|__x64_sys_write\b/],
  ["socket reads, epoll (syscall)", /epoll_wait|__x64_sys_read|tcp_recvmsg|__x64_sys_accept/],
  ["JSON (V8 native)", /JsonParser|JsonStringifier/],
  ["crypto (native)", /EVP_|sha256_block|SHA256|node::crypto/],
];
const JS: [string, RegExp][] = [
  ["service: src/http", /dist\/http\//],
  ["service: src/storage", /dist\/storage\//],
  ["service: src/service", /dist\/service\//],
  ["service: src/core", /dist\/core\//],
  ["service: other src", /dist\//],
  ["fastify and its plugins", /node_modules\/(fastify|@fastify|find-my-way|secure-json-parse|avvio|fast-json-stringify)/],
  ["better-sqlite3 (JS)", /better-sqlite3/],
  ["metrics (prom-client)", /prom-client/],
  ["node: http", /node:_http|node:http/],
  ["node: streams, net, events, timers, promises", /node:/],
  ["other JS", /JS:/],
];
const OTHER = "other native (malloc, kernel, libuv, V8 runtime)";

function classify(stack: string[]): string {
  const text = stack.join("\n");
  for (const [name, pattern] of NATIVE) if (pattern.test(text)) return name;
  for (const frame of stack) {
    if (!frame.includes("JS:")) continue;
    for (const [name, pattern] of JS) if (pattern.test(frame)) return name;
  }
  return OTHER;
}

const { values } = parseArgs({ options: { detail: { type: "string" } } });
const counts = new Map<string, number>();
let total = 0;
let stack: string[] = [];
const flush = () => {
  if (stack.length === 0) return;
  total++;
  const category = classify(stack);
  let key = category;
  if (values.detail !== undefined) {
    if (category !== values.detail) key = "";
    else key = (stack.find((frame) => frame.includes("dist/")) ?? "(no frame of dist/)").replace(/^\S+ /, "").replace(/\+0x[0-9a-f]+.*$/, "").replace(/file:\/\/\S*?dist\//, "dist/");
  }
  if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  stack = [];
};
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "") flush();
  else if (/^\s/.test(line)) stack.push(line.trim());
}
flush();
for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  process.stdout.write(`${((100 * count) / total).toFixed(1).padStart(5)} %  ${key}\n`);
}
process.stdout.write(`${total} samples\n`);
