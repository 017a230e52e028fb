import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CI_IS_SET } from "./support/ci.js";
import { REPO_ROOT, ensureBuilt, startCommand, type ServerProcess } from "./support/server-process.js";
import { until } from "./support/wait-until.js";

// The README's "The same with `curl`" block, run as printed by `sh` against the built server on a
// free loopback port (the port is the one thing substituted). Its output must be the output the
// README prints below the block (the document's id and the times differ from run to run), and the
// service must have answered exactly the statuses the block's comments promise.

const TIMEOUT_MS = 30_000;
const PRINTED_ADDRESS = "http://127.0.0.1:8080";
const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;

function toolFound(tool: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const missing = ["curl", "sha256sum", "sed", "cut"].filter((tool) => !toolFound(tool));
if (missing.length > 0) {
  const message = `the README's curl block needs ${missing.join(", ")}, which this machine lacks`;
  if (CI_IS_SET) throw new Error(message);
  console.warn(`skipped: ${message}`);
}

/** The first fenced block of `language` after `heading` in the README. */
function fencedBlockAfter(readme: string, heading: string, language: string): string {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`the README has no heading ${JSON.stringify(heading)}`);
  const open = readme.indexOf(`\n\`\`\`${language}\n`, start);
  const close = readme.indexOf("\n```\n", open + 1);
  if (open < 0 || close < 0) throw new Error(`no \`\`\`${language} block after ${JSON.stringify(heading)}`);
  return readme.slice(open + `\n\`\`\`${language}\n`.length, close + 1);
}

let dir: string;
let server: ServerProcess | undefined;
let address: string;

beforeAll(async () => {
  if (missing.length > 0) return;
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "folio-readme-curl-"));
  writeFileSync(join(dir, "empty.yaml"), "");
  server = startCommand(
    process.execPath,
    [join(REPO_ROOT, "dist/server.js")],
    { SERVICE_CONFIG_FILE: join(dir, "empty.yaml"), SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: `sqlite:${join(dir, "readme.db")}` },
    dir,
  );
  const listening = await server.waitForLine((line) => line.msg.startsWith("listening on "), TIMEOUT_MS);
  address = String(listening.address);
}, 130_000);

afterAll(async () => {
  if (server) {
    server.child.kill("SIGTERM");
    await server.waitForExit(TIMEOUT_MS).catch(() => server?.kill());
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(missing.length > 0)("the README's curl block", () => {
  it("runs as printed and prints what the README shows, with the statuses its comments name", async () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const block = fencedBlockAfter(readme, "### The same with `curl`", "sh");
    const printed = fencedBlockAfter(readme, "### The same with `curl`", "text");
    // The block names the service's address once; only its port changes here.
    expect(block.split(PRINTED_ADDRESS).length - 1).toBe(1);
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const { stdout, stderr } = await promisify(execFile)("sh", ["-c", block.replace(PRINTED_ADDRESS, address)], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeout: TIMEOUT_MS,
    });
    expect(stderr).toBe("");

    // The first line is the new document's id; the README shows another one.
    const id = stdout.split("\n")[0] ?? "";
    const printedId = printed.split("\n")[0] ?? "";
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const normalize = (text: string) => text.replace(TIMESTAMP, "<time>");
    expect(normalize(stdout.split(id).join(printedId))).toBe(normalize(printed));

    // What the service answered, from its request log lines (the background poll and the patch
    // that wakes it may be answered in either order).
    // A request's log line is written after its answer has gone: the last one may still be on its way.
    const requestLines = () => server!.lines.filter((line) => line.msg === "request");
    await until("the log lines of the block's nine requests", () => requestLines().length >= 9);
    const answers = requestLines().map((line) => `${String(line.method)} ${String(line.route)} ${String(line.status)}`);
    const documentRoute = "/api/v1/documents/:documentId";
    expect(answers.slice(0, 5)).toEqual([
      "POST /api/v1/documents 201",
      `GET ${documentRoute} 200`,
      `PATCH ${documentRoute}/content 200`,
      `PATCH ${documentRoute}/content 422`,
      `GET ${documentRoute}/changes 200`,
    ]);
    expect(answers.slice(5, 7).sort()).toEqual([`GET ${documentRoute}/changes 200`, `PATCH ${documentRoute}/content 200`]);
    expect(answers.slice(7)).toEqual([`GET ${documentRoute} 200`, `GET ${documentRoute}/changes 204`]);

    // The text the block left, read independently of it.
    const document = (await (await fetch(`${address}/api/v1/documents/${id}`)).json()) as { content: string; version: number };
    expect({ content: document.content, version: document.version }).toEqual({ content: "apples\nbrown bread\ncheese\ndates", version: 3 });
  });
});
