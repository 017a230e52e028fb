import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects:
 * - "sqlite" runs every suite as the service ships (in-memory SQLite behind buildTestApp); the
 *   store suites of both adapters are in it (test/storage/postgres*.test.ts skip or fail by themselves).
 * - "postgres" runs the HTTP suites of documents, content, the change feed, read links and presence once more with
 *   FOLIO_TEST_STORE=postgres, so that buildTestApp puts each app on a fresh PostgreSQL schema,
 *   plus the multi-instance suites, which need PostgreSQL by nature. Without a reachable
 *   PostgreSQL its tests are skipped with a message, and fail when CI is set (see its setup file).
 *   test/http/restart.test.ts is left out: it restarts on a SQLite file by design.
 */
export default defineConfig({
  test: {
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The PostgreSQL suites share one server; files run in parallel but each uses its own schema.
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/multi-instance/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [
            "test/http/documents*.test.ts",
            "test/http/content*.test.ts",
            "test/http/changes*.test.ts",
            "test/http/read-links*.test.ts",
            "test/http/presence*.test.ts",
            "test/http/hostile-input.test.ts",
            "test/crash.test.ts",
            "test/multi-instance/**/*.test.ts",
          ],
          env: { FOLIO_TEST_STORE: "postgres" },
          setupFiles: ["test/support/postgres-project-setup.ts"],
        },
      },
    ],
  },
});
