// Bundles the editor page (web/) into dist/web: one JavaScript and one CSS file with content-hashed
// names under dist/web/assets, and index.html pointing to them. Nothing is fetched at run time
// except the API; see docs/editor.md. `--outdir <dir>` builds elsewhere (the E2E
// tests build into a temporary folder).
import { build } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const at = process.argv.indexOf("--outdir");
const outdir = at > 0 && process.argv[at + 1] ? process.argv[at + 1] : join(root, "dist", "web");
const assets = join(outdir, "assets");

rmSync(outdir, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: [join(root, "web", "main.ts")],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome110", "firefox115", "safari16"],
  minify: true,
  sourcemap: "linked",
  outdir: assets,
  entryNames: "[name]-[hash]",
  metafile: true,
  logLevel: "warning",
  legalComments: "none",
});

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.endsWith(".js"));
const style = outputs.find((name) => name.endsWith(".css"));
if (!script || !style) throw new Error(`build-web: expected one .js and one .css output, got ${outputs.join(", ")}`);

const html = readFileSync(join(root, "web", "index.html"), "utf8")
  .replace("%SCRIPT%", `/assets/${script}`)
  .replace("%STYLE%", `/assets/${style}`);
writeFileSync(join(outdir, "index.html"), html);
