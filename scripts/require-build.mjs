// Loaded by `npm start` (and the other npm scripts that run dist/) before the script itself: without a
// build, one line says what to run instead of Node's stack trace for a missing module. The build
// happens at install (`prepare`), never at start.
import { existsSync } from "node:fs";
import { relative } from "node:path";

const main = process.argv[1];
if (main !== undefined && !existsSync(main)) {
  process.stderr.write(`${relative(process.cwd(), main)} is missing: run \`npm run build\` (or \`npm ci\`, which builds) first\n`);
  process.exit(1);
}
