import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The PostgreSQL suites share one server; files run in parallel but each uses its own schema.
    pool: "forks",
  },
});
