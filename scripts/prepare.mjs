// `npm ci` and `npm install` run this after installing: it builds dist/, so that `npm start` only
// starts. Without the compiler (an install that omitted dev dependencies) it leaves dist/ as it is
// and says so in one line; docs/operations.md's production install builds first and prunes afterwards.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

try {
  createRequire(import.meta.url).resolve("typescript");
} catch {
  process.stderr.write("prepare: TypeScript is not installed (dev dependencies omitted); dist/ is not rebuilt\n");
  process.exit(0);
}
const npm = process.env.npm_execpath;
const result = npm
  ? spawnSync(process.execPath, [npm, "run", "--silent", "build"], { stdio: "inherit" })
  : spawnSync("npm", ["run", "--silent", "build"], { stdio: "inherit" });
process.exit(result.status ?? 1);
