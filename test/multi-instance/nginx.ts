import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { REPO_ROOT } from "../support/server-process.js";

/** Debian's nginx; .ci/run installs it when missing. */
export const NGINX = "/usr/sbin/nginx";
/** The operator's file that the load-balancer test runs. */
export const NGINX_CONF = join(REPO_ROOT, "deploy/nginx.conf");

/** Why nginx cannot run here, or `undefined`. */
export function nginxMissing(): string | undefined {
  return existsSync(NGINX) ? undefined : `${NGINX} is not installed`;
}

/** A loopback port that was free a moment ago (for a process that must bind a known port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Replaces exactly one occurrence of `pattern`, so that a change of deploy/nginx.conf that the test would miss fails it. */
function replaceOnce(text: string, pattern: RegExp, replacement: string): string {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`)) ?? [];
  if (matches.length !== 1) throw new Error(`deploy/nginx.conf: expected one match of ${pattern}, found ${matches.length}`);
  return text.replace(pattern, replacement);
}

/**
 * deploy/nginx.conf as it is, with only what a test must change: the listen address and the
 * upstream servers on loopback ports, and every file nginx writes (pid, logs, temporary bodies)
 * in `dir`. One worker; as root the workers stay root so that they can use `dir`.
 */
export function renderNginxConfig(source: string, options: { dir: string; listenPort: number; upstreamPorts: number[] }): string {
  const { dir } = options;
  let text = source;
  text = replaceOnce(text, /^user www-data;$/m, process.getuid?.() === 0 ? "user root;" : "");
  text = replaceOnce(text, /^worker_processes auto;$/m, "worker_processes 1;");
  text = replaceOnce(text, /^pid \S+;$/m, `pid ${dir}/nginx.pid;`);
  text = replaceOnce(text, /^error_log \S+ crit;$/m, `error_log ${dir}/error.log warn;`);
  text = replaceOnce(text, /access_log \S+ folio;/, `access_log ${dir}/access.log folio;`);
  text = replaceOnce(text, /listen 80;/, `listen 127.0.0.1:${options.listenPort};`);
  const upstream = /^(\s*)server 127\.0\.0\.1:\d+ ([^;\n]*);\n(?:\s*server 127\.0\.0\.1:\d+ [^;\n]*;\n)*/m;
  const match = upstream.exec(text);
  if (!match) throw new Error("deploy/nginx.conf: no upstream server lines");
  const [, indent, parameters] = match;
  text = replaceOnce(text, upstream, options.upstreamPorts.map((port) => `${indent}server 127.0.0.1:${port} ${parameters};\n`).join(""));
  const temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `    ${kind}_temp_path ${dir}/${kind};`).join("\n");
  return replaceOnce(text, /^http \{$/m, `http {\n${temporary}`);
}

export interface Nginx {
  readonly child: ChildProcess;
  /** nginx's error log (and what it wrote to stderr) so far. */
  errors(): string;
  /** The access log so far. */
  accessLog(): string;
  stop(): Promise<void>;
}

/** Runs nginx in the foreground with the rendered configuration; the test kills it itself, never a system service. */
export function startNginx(dir: string, config: string): Nginx {
  const path = join(dir, "nginx.conf");
  writeFileSync(path, config);
  const child = spawn(NGINX, ["-p", dir, "-e", join(dir, "error.log"), "-c", path, "-g", "daemon off;"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : "");
  return {
    child,
    errors: () => stderr + read("error.log"),
    accessLog: () => read("access.log"),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
