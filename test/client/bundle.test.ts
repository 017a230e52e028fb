import { builtinModules } from "node:module";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { expect, it } from "vitest";

// The client runs in browsers: bundled for the browser (esbuild, ESM) it must resolve without any
// Node built-in, carry no schema library at run time (the wire types are type-only), and stay small.
// The sizes are reported in the docs/editing-protocol.md ("The SDK"); FOLIO_REPORT=1 prints them.
// About 46 KB of the minified size is @codemirror/state (the library keeps edits as its ChangeSets,
// the same ones the editor page already loads, so on the page it costs nothing more) and 12 KB the
// OPML reader of exports converted in the client (encrypted documents). Presence (issue 36: the
// channel, its version steps, the stream's presence frames) added about 7.5 KB minified, 2 KB gzipped.

const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

it("bundles src/client for the browser without Node built-ins", { timeout: 30_000 }, async () => {
  const result = await build({
    entryPoints: ["src/client/index.ts"],
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((imported) => imported.path));

  expect(imports.filter((path) => NODE_BUILTINS.has(path))).toEqual([]);
  expect(inputs.filter((path) => /^src\//.test(path) && !/^src\/(client|core)\//.test(path))).toEqual([]);
  expect(inputs.filter((path) => path.includes("@sinclair/typebox"))).toEqual([]);
  const code = result.outputFiles[0]!.contents;
  const gzipped = gzipSync(code, { level: 9 }).length;
  if (process.env.FOLIO_REPORT) console.log(`client bundle: ${code.length} bytes minified, ${gzipped} bytes gzipped`);
  expect(code.length).toBeLessThan(170_000);
  expect(gzipped).toBeLessThan(57_000);
});
