// Records when the build ran, so that GET /info can report `builtAt`.
import { writeFileSync } from "node:fs";

writeFileSync(new URL("../dist/build-info.json", import.meta.url), JSON.stringify({ builtAt: new Date().toISOString() }) + "\n");
