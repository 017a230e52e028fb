/**
 * The editor page in real Chromium for the benchmarks: the page built by the project's own script
 * (scripts/build-web.mjs) and served by the service under test, Debian's Chromium driven by
 * playwright-core with the flags the editor's E2E tests launch it with (test/e2e/e2e-support.ts).
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { checkPinned, pinning } from "./pinning.js";
import { REPO_ROOT } from "./processes.js";
import type { ServiceBuild } from "./service.js";

export const CHROMIUM = process.env.FOLIO_CHROMIUM ?? "/usr/bin/chromium";
/** As in test/e2e/e2e-support.ts. */
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Builds the page (minified, with its source map, as `npm run build` does) into `outdir`. */
export async function buildPage(outdir: string): Promise<{ outdir: string; buildMs: number }> {
  const started = performance.now();
  await promisify(execFile)(process.execPath, [join(REPO_ROOT, "scripts/build-web.mjs"), "--outdir", outdir], { cwd: REPO_ROOT, timeout: 120_000 });
  return { outdir, buildMs: performance.now() - started };
}

/**
 * Puts the built page where the compiled service serves it from: dist/web beside its dist/server.js
 * (src/http/routes/web.ts). The service run through tsx would serve the repository's own dist/web,
 * which the benchmark must not overwrite, so that mode is refused.
 */
export function servePageFrom(build: ServiceBuild, outdir: string): void {
  if (build.mode !== "dist") throw new Error("this scenario needs the compiled service (its page is served from dist/web beside it); run it without --tsx");
  const webRoot = join(dirname(build.entryArgs[0]!), "web");
  if (!existsSync(webRoot)) symlinkSync(outdir, webRoot, "dir");
}

/** The bundle's JavaScript file and its source map, as built into `outdir`. */
export function bundleFiles(outdir: string): { script: string; map: unknown } {
  const assets = join(outdir, "assets");
  const script = readdirSync(assets).find((name) => name.endsWith(".js"));
  if (!script) throw new Error(`no script in ${assets}`);
  return { script, map: JSON.parse(readFileSync(join(assets, `${script}.map`), "utf8")) as unknown };
}

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (Debian's chromium package; FOLIO_CHROMIUM names another)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}

export interface EditorTab {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/**
 * A browser context of its own (its own localStorage, so pages never adopt each other's kept edits)
 * with one page opened on /d/<id>, the display name set as the E2E tests set it, waited until the
 * editor is editable and the page says its text is synced.
 */
export async function openEditor(browser: Browser, origin: string, id: string, viewport = { width: 1100, height: 720 }): Promise<EditorTab> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(`if (location.protocol === "http:") localStorage.setItem("folio.displayName", "bench")`);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${origin}/d/${id}`, { timeout: 30_000 });
  await page.locator('.cm-content[contenteditable="true"]').waitFor({ timeout: 30_000 });
  await waitForStatus(page, "synced", 30_000);
  return { context, page, errors };
}

/** Polls the page's sync indicator (every 25 ms, at most `ms`) until it says `status`; throws after that. */
export async function waitForStatus(page: Page, status: string, ms: number): Promise<void> {
  const end = performance.now() + ms;
  let seen: string | null = null;
  while (performance.now() < end) {
    seen = await page.locator(".sync").getAttribute("data-status");
    if (seen === status) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the page's status stayed "${seen}" for ${ms} ms (wanted "${status}")`);
}

/**
 * Puts every thread of every Chromium process (below this runner) on the load side's CPU. They
 * inherit this runner's affinity, but Chromium moves a few threads of its own (two of the browser
 * process's, on Chromium 156) to other CPUs; called once the pages are open. Returns one sentence
 * for the method notes.
 */
export function pinChromium(): string {
  const pin = pinning();
  if (pin.load === undefined) return "Chromium unpinned, like everything else in this run.";
  const chromium = descendants(process.pid).filter((pid) => {
    try {
      return /chrom/i.test(readFileSync(`/proc/${pid}/comm`, "utf8"));
    } catch {
      return false;
    }
  });
  for (const pid of chromium) execFileSync("/usr/bin/taskset", ["-a", "-p", "-c", String(pin.load), String(pid)], { stdio: "ignore" });
  const wrong = chromium.flatMap((pid) => checkPinned(pid, "load"));
  return wrong.length === 0
    ? `Chromium's ${chromium.length} processes (all their threads) pinned to CPU ${pin.load} with the runner (taskset; checked in /proc), the service alone on CPU ${pin.server}.`
    : `Chromium was to run on CPU ${pin.load} with the runner, but ${wrong.slice(0, 3).join("; ")}.`;
}

/** Every process below `pid` (/proc/<pid>/task/<tid>/children). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const walk = (parent: number) => {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let children: string[] = [];
      try {
        children = readFileSync(`/proc/${parent}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
      } catch {
        continue;
      }
      for (const child of children.map(Number)) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}
