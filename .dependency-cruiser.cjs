/**
 * The layer rules of the codebase. Dependencies point one way:
 * http → service → core, service → storage contract ← adapters.
 * `npm run lint` fails on any violation and on any import cycle.
 */
module.exports = {
  forbidden: [
    { name: "no-cycles", severity: "error", from: {}, to: { circular: true } },
    {
      name: "core-is-pure",
      comment: "src/core is shared with browser clients: no I/O, no Node APIs, no other layer",
      severity: "error",
      from: { path: "^src/core" },
      to: { pathNot: ["^src/core", "^node_modules/(@sinclair/typebox|diff|@noble/hashes|@codemirror/state|@marijn|@rgrove/parse-xml)"] },
    },
    {
      name: "api-is-the-wire-shape-only",
      comment: "src/api holds the wire schemas shared by the service's routes and the client: core and TypeBox only",
      severity: "error",
      from: { path: "^src/api" },
      to: { pathNot: ["^src/api", "^src/core", "^node_modules/@sinclair/typebox"] },
    },
    {
      name: "http-knows-no-storage-adapter",
      comment: "src/http reaches storage only through the contract (src/storage/store.ts); which adapter runs is the entry point's choice",
      severity: "error",
      from: { path: "^src/http" },
      to: { path: ["^src/storage/(sqlite|postgres)", "^node_modules/(better-sqlite3|pg)"] },
    },
    {
      name: "client-runs-in-browsers",
      comment:
        "src/client (the SDK) runs in browsers and Node: only itself, the line algebra, the wire schemas and their npm packages; no Node API, no service code",
      severity: "error",
      from: { path: "^src/client" },
      to: { pathNot: ["^src/client", "^src/core", "^src/api", "^node_modules/(@sinclair/typebox|diff|@noble/hashes|@noble/ciphers|@codemirror/state|@marijn|@rgrove/parse-xml)"] },
    },
    {
      name: "nothing-below-reaches-the-client",
      comment: "the client sits on top of core and api; no layer of the service depends on it",
      severity: "error",
      from: { path: "^src", pathNot: "^src/client" },
      to: { path: "^src/client" },
    },
    {
      name: "service-knows-no-transport-or-adapter",
      severity: "error",
      from: { path: "^src/service" },
      to: { path: ["^src/http", "^src/storage/(sqlite|postgres)", "^src/tracker", "^src/server", "^node_modules/(fastify|better-sqlite3|pg|undici)"] },
    },
    {
      name: "storage-below-service",
      severity: "error",
      from: { path: "^src/storage" },
      to: { path: ["^src/http", "^src/service", "^src/tracker", "^src/server"] },
    },
    {
      name: "storage-adapters-independent",
      severity: "error",
      from: { path: "^src/storage/sqlite" },
      to: { path: "^src/storage/postgres" },
    },
    {
      name: "storage-adapters-independent-pg",
      severity: "error",
      from: { path: "^src/storage/postgres" },
      to: { path: "^src/storage/sqlite" },
    },
    {
      name: "tracker-knows-no-http-layer",
      severity: "error",
      comment: "the tracker client may raise the shared ServiceError, nothing else of the service",
      from: { path: "^src/tracker" },
      to: { path: ["^src/http", "^src/service/(?!service-error)", "^src/storage", "^src/server"] },
    },
    {
      name: "web-speaks-only-through-the-client",
      comment: "the editor page reaches the service only through src/client; it shares src/core, its UI libraries and jsdiff (character diffs)",
      severity: "error",
      from: { path: "^web" },
      to: { pathNot: ["^web", "^src/client", "^src/core", "^src/api", "^node_modules/(@codemirror|@marijn|@lezer|crelt|style-mod|w3c-keyname|@sinclair/typebox|diff|@rgrove/parse-xml)"] },
    },
    {
      name: "web-takes-only-types-from-api",
      severity: "error",
      from: { path: "^web" },
      to: { path: "^src/api", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "metrics-only-from-the-composition",
      comment: "the service, storage and tracker report through their observer ports; src/metrics implements them",
      severity: "error",
      from: { path: "^src/(core|service|storage|tracker)" },
      to: { path: ["^src/metrics", "^node_modules/prom-client"] },
    },
    {
      name: "metrics-reads-no-transport-or-adapter",
      severity: "error",
      from: { path: "^src/metrics" },
      to: { path: ["^src/http", "^src/storage/(sqlite|postgres)", "^src/server", "^node_modules/(fastify|better-sqlite3|pg|undici)"] },
    },
    {
      name: "demo-stands-alone",
      comment:
        "src/demo (the fake Taiga behind `npm run demo-tracker` and the tests) is Taiga, not Folio: Node's own modules only, so that it never agrees with the tracker client by sharing its code",
      severity: "error",
      from: { path: "^src/demo" },
      to: { pathNot: "^src/demo", dependencyTypesNot: ["core"] },
    },
    {
      name: "nothing-reaches-the-demo",
      comment: "the service never runs the fake tracker; the production image leaves dist/demo out",
      severity: "error",
      from: { path: "^src", pathNot: "^src/demo" },
      to: { path: "^src/demo" },
    },
    {
      name: "only-the-entry-and-tests-reach-the-entry",
      severity: "error",
      from: { path: "^src", pathNot: "^src/server" },
      to: { path: "^src/server" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
