// Loaded by `npm start` before dist/server.js: without a build, one line says what to run instead
// of Node's stack trace for a missing module. The build happens at install (`prepare`), never at start.
import { existsSync } from "node:fs";

if (!existsSync(new URL("../dist/server.js", import.meta.url))) {
  process.stderr.write("dist/server.js is missing: run `npm run build` (or `npm ci`, which builds) first\n");
  process.exit(1);
}
