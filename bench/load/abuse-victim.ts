import { Worker } from "node:worker_threads";

// The well-behaved client of the abuse run (bench/load/abuse.ts): from its own loopback address and
// its own thread (so that the attacker's work in the main thread never delays its clock), it reads
// a small document, patches it and asks the feed, one request after another, and times each.

/** What the victim saw. */
export interface VictimReport {
  /** Milliseconds of every request, in the order sent. */
  latencies: number[];
  patchesSent: number;
  /** The lines its acknowledged patches appended, in order. */
  acknowledged: string[];
  /** Answers other than the expected ones (status and route), and network errors. */
  unexpected: string[];
  statuses: Record<string, number>;
  /** The ten slowest requests: what, how long, and when (ms after the victim began). */
  slowest: { what: string; ms: number; at: number }[];
  /**
   * The 99th percentile of the victim's own event-loop delay (ms): how long its thread waited for a
   * CPU. High when other processes load the machine; then its request times say little of the service.
   */
  ownDelayP99: number;
}

export interface VictimOptions {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** The source address of its connections (a second loopback address: 127.0.0.2). */
  localAddress: string;
  documentId: string;
  /** The document's text and version when the victim starts. */
  text: string;
  version: number;
  durationMs: number;
  /** The pause between two requests. */
  pauseMs: number;
  /** Its patches' clientId, also in the lines it writes. */
  clientId: string;
}

// A CommonJS script: a worker given as source runs without the TypeScript loader.
const SOURCE = `
const http = require("node:http");
const { createHash } = require("node:crypto");
const { parentPort, workerData: o } = require("node:worker_threads");
const { monitorEventLoopDelay } = require("node:perf_hooks");
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: o.localAddress });
const url = new URL(o.base);
const sum = (text) => "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
function call(method, path, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const request = http.request({ host: url.hostname, port: url.port, method, path, agent, timeout: 15000,
      headers: payload ? { "content-type": "application/json", "content-length": payload.length } : {} }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }));
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", (error) => resolve({ status: 0, body: String(error.message), ms: performance.now() - started }));
    request.end(payload);
  });
}
(async () => {
  const report = { latencies: [], patchesSent: 0, acknowledged: [], unexpected: [], statuses: {}, slowest: [] };
  const began = performance.now();
  const note = (what, answer, expected) => {
    report.latencies.push(answer.ms);
    report.slowest.push({ what, ms: Math.round(answer.ms), at: Math.round(performance.now() - began - answer.ms) });
    report.slowest.sort((a, b) => b.ms - a.ms);
    report.slowest.length = Math.min(report.slowest.length, 10);
    const key = what + " " + answer.status;
    report.statuses[key] = (report.statuses[key] ?? 0) + 1;
    if (!expected.includes(answer.status)) report.unexpected.push(key + " " + answer.body.slice(0, 200));
  };
  const path = "/api/v1/documents/" + o.documentId;
  let text = o.text, version = o.version, seq = 0;
  const deadline = performance.now() + o.durationMs;
  const pause = () => new Promise((resolve) => setTimeout(resolve, o.pauseMs));
  while (performance.now() < deadline) {
    note("GET document", await call("GET", path), [200]);
    await pause();
    const line = o.clientId + " line " + (++seq);
    const body = { baseVersion: version, checksum: sum(text), clientId: o.clientId, seq, ops: [{ op: "insert", index: text.split("\\n").length, lines: [line] }] };
    report.patchesSent++;
    // A patch is sent again (same seq) until it is answered: nothing the victim typed may be lost.
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await call("PATCH", path + "/content", body);
      note("PATCH content", answer, [200]);
      if (answer.status === 200) {
        version = JSON.parse(answer.body).version;
        text = text + "\\n" + line;
        report.acknowledged.push(line);
        break;
      }
      await pause();
    }
    await pause();
    note("GET changes", await call("GET", path + "/changes?since=" + Math.max(1, version - 1) + "&wait=0"), [200, 204]);
    await pause();
  }
  agent.destroy();
  report.ownDelayP99 = delay.percentile(99) / 1e6;
  parentPort.postMessage(report);
})();
`;

/** Runs the victim for `durationMs` and resolves with its report. */
export function runVictim(options: VictimOptions): Promise<VictimReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SOURCE, { eval: true, workerData: options });
    worker.once("message", (report: VictimReport) => {
      resolve(report);
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}

/** The `p`-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
