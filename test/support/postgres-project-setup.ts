import { beforeEach } from "vitest";
import { CI_IS_SET, postgresUnreachable } from "./postgres.js";
import { reuseSchemasWithinFile } from "./reused-schemas.js";

// Setup file of the vitest project "postgres", which runs HTTP suites with
// FOLIO_TEST_STORE=postgres. Without a reachable PostgreSQL their tests are skipped with a message,
// or, when CI is set, each fails saying why: CI never passes without the PostgreSQL suites.
const unreachable = postgresUnreachable();
if (unreachable === undefined) {
  reuseSchemasWithinFile();
} else {
  if (CI_IS_SET) {
    beforeEach(() => {
      throw new Error(`${unreachable}. CI is set, so the PostgreSQL suites must run: start it or set FOLIO_TEST_PG_URL.`);
    });
  } else {
    console.warn(`${unreachable}: skipping this file of the postgres project. Set FOLIO_TEST_PG_URL, or CI to make this a failure.`);
    beforeEach((context) => {
      context.skip(unreachable);
    });
  }
}
