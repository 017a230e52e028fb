import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import { connect, type Socket } from "node:net";
import { percentile, runVictim, type VictimReport } from "./abuse-victim.js";

// One client address sends the worst requests the limits allow while a second one reads and
// patches (docs/api.md, "Bounds"; test/abuse.test.ts and `npm run bench -- --only abuse`): a nested
// body, a big document's feed and history, whole-text replaces and stale rebases of it, slow bodies,
// thousands of long polls, parallel guesses at the list, list requests without credentials, and
// floods of the tracker proxy. Every loop ends by its count or the run's deadline.

export interface AbuseOptions {
  /** `http://127.0.0.1:<port>`: the service, with its rate limits at their defaults. */
  base: string;
  attacker: string;
  victim: string;
  durationMs: number;
  /** Lines of the big document (100,000 lines of about 50 bytes are 5 MB). */
  bigLines: number;
  longPolls: number;
  slowBodies: number;
  /** The bytes of the nested body (`[[[…]]]`): about the document body limit. */
  nestedBytes: number;
  /** The master password (the service holds its hash): the owner's list before the attack. */
  password: string;
  log?: (message: string) => void;
}

export interface AbuseResult {
  /** The victim alone for a few seconds before the attack, on the same machine: how noisy it is (the last of up to three tries). */
  baseline: { p50: number; p99: number; requests: number };
  victim: VictimReport & { p50: number; p99: number; max: number; lost: string[] };
  /** Answers the attacker got, by kind of request and status. */
  attacker: Record<string, Record<string, number>>;
  /** Answers with a status of 500 or more (the tracker's 502 aside), to either address. */
  serverErrors: string[];
  /** The owner's list (the right password) after a flood of list requests without credentials: 200, never locked. */
  listAfterNoCredentials: number;
}

/** The victim's p99 alone under which the machine counts as quiet enough to start the attack. */
export const QUIET_P99_MS = 40;

const sum = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

interface Answer {
  status: number;
  body: string;
}

/** An HTTP client bound to one source address. */
function clientFrom(base: string, localAddress: string) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, localAddress });
  const call = (method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve) => {
      const payload = typeof body === "string" ? Buffer.from(body) : body;
      const request = http.request(
        { host: url.hostname, port: url.port, method, path, agent, timeout: 60_000, headers: { ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}), ...headers } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
          response.on("error", () => resolve({ status: 0, body: "response error" }));
        },
      );
      request.on("timeout", () => request.destroy(new Error("timed out")));
      request.on("error", (error) => resolve({ status: 0, body: error.message }));
      request.end(payload);
    });
  return { call, close: () => agent.destroy() };
}

/** A request whose body comes a byte a second, until the service gives up on it (or the run ends). */
function slowBody(base: string, localAddress: string, path: string, until: number): Promise<number> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
    let answer = "";
    const drip = setInterval(() => (performance.now() > until ? socket.destroy() : socket.write("[")), 1000);
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(drip);
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0));
    });
    socket.write(`PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[`);
  });
}

/** Opens `count` long polls at once from one address; resolves with their statuses when the run ends. */
async function longPolls(base: string, localAddress: string, path: string, count: number, until: number): Promise<number[]> {
  const url = new URL(base);
  const one = () =>
    new Promise<number>((resolve) => {
      const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
      let answer = "";
      const end = setTimeout(() => socket.destroy(), Math.max(0, until - performance.now()));
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString("latin1");
        if (/^HTTP\/1\.1 \d{3}/.test(answer)) socket.destroy();
      });
      socket.on("error", () => undefined);
      socket.on("close", () => {
        clearTimeout(end);
        resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0));
      });
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
  const polls: Promise<number>[] = [];
  // 100 every 50 ms (2,000 a second): the connects neither overflow the listen queue nor measure
  // the kernel's and Node's accepting of thousands of sockets in one burst instead of the service.
  for (let opened = 0; opened < count; opened += 100) {
    for (let index = opened; index < Math.min(count, opened + 100); index++) polls.push(one());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Promise.all(polls);
}

/** The whole run; see the file's head. */
export async function runAbuse(options: AbuseOptions): Promise<AbuseResult> {
  const log = options.log ?? (() => undefined);
  const attacker = clientFrom(options.base, options.attacker);
  const owner = clientFrom(options.base, options.victim);
  const tally: Record<string, Record<string, number>> = {};
  const serverErrors: string[] = [];
  const count = (kind: string, answer: Answer) => {
    const byStatus = (tally[kind] ??= {});
    byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
    if (answer.status >= 500 && !(answer.status === 502 && kind.startsWith("tracker"))) serverErrors.push(`${kind} ${answer.status} ${answer.body.slice(0, 200)}`);
    return answer;
  };

  // Before the attack: list requests without credentials (none, HEAD, another scheme) never lock the list.
  for (let round = 0; round < 40; round++) {
    for (const headers of [{}, { authorization: "Bearer x.y.z" }, { authorization: "Basic !!!" }] as Record<string, string>[]) count("list without credentials", await attacker.call("GET", "/api/v1/documents", undefined, headers));
    count("list HEAD", await attacker.call("HEAD", "/api/v1/documents"));
  }
  const listAfterNoCredentials = (await owner.call("GET", "/api/v1/documents", undefined, { authorization: `Basic ${Buffer.from(`admin:${options.password}`).toString("base64")}` })).status;

  // Slow bodies (of a small announced length: a unit of the writes each), then the big document,
  // while the address has the writes to send it (a whole text weighs a unit of the writes limit
  // per KiB: it keeps the address waiting for seconds afterwards).
  const slow = Array.from({ length: options.slowBodies }, () =>
    slowBody(options.base, options.attacker, `/api/v1/documents/${randomUUID()}`, performance.now() + options.durationMs + 10_000).then((status) => void count("slow body", { status, body: "" })),
  );
  // Their heads arrive before the big document's body does.
  await new Promise((resolve) => setTimeout(resolve, 500));
  // 48 characters and a newline a line: 100,000 lines are 4.9 MB, within the default 5 MiB.
  const line = (tag: string, index: number) => `${tag} line ${index} of the big document`.padEnd(48, ".");
  const big = (tag: string) => Array.from({ length: options.bigLines }, (_, index) => line(tag, index)).join("\n");
  const created = count("create big", await attacker.call("POST", "/api/v1/documents", JSON.stringify({ title: "Big", content: big("a") })));
  const bigId = (JSON.parse(created.body) as { id: string }).id;
  const nested = Buffer.from("[".repeat(options.nestedBytes / 2) + "]".repeat(options.nestedBytes / 2));
  const small = JSON.parse((await owner.call("POST", "/api/v1/documents", JSON.stringify({ title: "Victim", content: "first line" }))).body) as { id: string; version: number };
  const idle = JSON.parse((await attacker.call("POST", "/api/v1/documents", JSON.stringify({ title: "Idle", content: "nothing happens here" }))).body) as { id: string; version: number };
  log(`big document ${bigId} (${options.bigLines} lines), victim's document ${small.id}`);

  // The victim alone first: what the machine gives it without an attacker. On a machine other jobs
  // load (a shared CI host), up to three tries for a quiet moment to start the attack in.
  let victimText = "first line";
  let victimVersion = small.version;
  let baseline = { p50: Number.NaN, p99: Number.NaN, requests: 0 };
  for (let attempt = 0; attempt < 3; attempt++) {
    const alone = await runVictim({ base: options.base, localAddress: options.victim, documentId: small.id, text: victimText, version: victimVersion, durationMs: 3000, pauseMs: 20, clientId: `alone-${attempt}` });
    baseline = { p50: percentile(alone.latencies, 50), p99: percentile(alone.latencies, 99), requests: alone.latencies.length };
    victimText = [victimText, ...alone.acknowledged].join("\n");
    victimVersion += alone.acknowledged.length;
    if (baseline.p99 < QUIET_P99_MS) break;
    log(`victim alone: p99 ${baseline.p99.toFixed(1)} ms, the machine is busy; measuring again`);
  }
  log(`victim alone: p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms over ${baseline.requests} requests`);

  // The victim is connected and reading before the attack begins, as an editor that was open.
  const victimRun = runVictim({ base: options.base, localAddress: options.victim, documentId: small.id, text: victimText, version: victimVersion, durationMs: options.durationMs + 500, pauseMs: 20, clientId: "victim" });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const until = performance.now() + options.durationMs;
  const running = () => performance.now() < until;
  const pace = () => new Promise((resolve) => setTimeout(resolve, 20));
  const loop = async (kind: string, send: () => Promise<Answer>) => {
    for (let sent = 0; sent < 1_000_000 && running(); sent++) {
      const answer = count(kind, await send());
      // A refused request's Retry-After is not waited for: the attacker knocks again 20 ms later.
      if (answer.status === 429) await pace();
    }
  };
  // Bodies made once: the attacker's own work must not take the CPU the service and the victim share.
  const replaces = ["b", "c"].map((tag) => Buffer.from(JSON.stringify({ title: "Big", content: big(tag) })));
  const staleChecksum = sum(big("a"));
  let bigVersion = 1;
  const attacks = [
    loop("nested body", () => attacker.call("PUT", `/api/v1/documents/${randomUUID()}`, nested)),
    loop("big GET", () => attacker.call("GET", `/api/v1/documents/${bigId}`)),
    loop("big history", () => attacker.call("GET", `/api/v1/documents/${bigId}/history`)),
    loop("big feed since=1", () => attacker.call("GET", `/api/v1/documents/${bigId}/changes?since=1&wait=0`)),
    loop("big replace", async () => {
      const answer = await attacker.call("PUT", `/api/v1/documents/${bigId}`, replaces[bigVersion % 2]);
      if (answer.status === 200) bigVersion = (JSON.parse(answer.body) as { version: number }).version;
      return answer;
    }),
    loop("stale rebase", () =>
      attacker.call("PATCH", `/api/v1/documents/${bigId}/content`, JSON.stringify({ baseVersion: 1, checksum: staleChecksum, clientId: "attacker", seq: bigVersion, ops: [{ op: "replace", index: 3, count: 1, lines: ["mine"] }] })),
    ),
    loop("list guesses", async () => {
      const guesses = await Promise.all(Array.from({ length: 20 }, (_, index) => attacker.call("GET", "/api/v1/documents", undefined, { authorization: `Basic ${Buffer.from(`admin:guess-${index}`).toString("base64")}` })));
      return guesses.find((answer) => answer.status !== 429) ?? guesses[0]!;
    }),
    loop("tracker reads", () => attacker.call("GET", "/api/v1/tracker/userstories/1?slug=demo", undefined, { "x-tracker-token": `made-up-${randomUUID()}` })),
    loop("tracker logins", () => attacker.call("POST", "/api/v1/tracker/auth", JSON.stringify({ username: "alice", password: `guess-${randomUUID()}` }))),
    ...slow,
    longPolls(options.base, options.attacker, `/api/v1/documents/${idle.id}/changes?since=${idle.version}&wait=60`, options.longPolls, until).then((statuses) => {
      for (const status of statuses) count("long poll", { status, body: "" });
    }),
  ];
  const victim = await victimRun;
  await Promise.all(attacks);

  const final = JSON.parse((await owner.call("GET", `/api/v1/documents/${small.id}`)).body) as { content: string };
  const kept = new Set(final.content.split("\n"));
  attacker.close();
  owner.close();
  for (const [key, times] of Object.entries(victim.statuses)) if (Number(key.split(" ").pop()) >= 500) serverErrors.push(`victim ${key} ×${times}`);
  return {
    baseline,
    victim: { ...victim, p50: percentile(victim.latencies, 50), p99: percentile(victim.latencies, 99), max: Math.max(...victim.latencies), lost: victim.acknowledged.filter((line) => !kept.has(line)) },
    attacker: tally,
    serverErrors,
    listAfterNoCredentials,
  };
}
