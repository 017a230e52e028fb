import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../src/config/config.js";
import { processesPerTest } from "./server-process.js";

/*
 * Values of the configuration suites (test/config-*.test.ts): the documented defaults, a
 * well-formed hash of each kind, and a temporary folder for configuration files per test.
 */

export const BCRYPT_HASH = "$2b$04$D/CGBg6htt1f7tl970OFtulvBJl1h1I6qkkO7nKrmZGv1s6LofJii";
export const ARGON2ID_HASH = "$argon2id$v=19$m=19456,t=2,p=1$ht866IOHjJSogov9AYLrhg$QGAMTdbShuPVWpTC2fOIEVvGGK6keU2fkMGQIRnkPGc";

export const DEFAULTS: Config = {
  server: { host: "127.0.0.1", port: 8080, trustProxy: false, shutdownTimeoutSeconds: 15, requestTimeoutSeconds: 30 },
  storage: { url: "sqlite:./data/service.db" },
  tracker: { loginType: "ldap", timeoutMs: 10_000 },
  masterPassword: { maxFailures: 5, lockSeconds: 60 },
  feed: { maxWaitSeconds: 60 },
  history: { pauseSeconds: 300, retentionSeconds: 86_400, compactionIntervalSeconds: 3600 },
  documents: { maxContentBytes: 5_242_880 },
  presence: { ttlSeconds: 30, maxClients: 100 },
  rateLimit: { createsPerMinute: 60, writesPerSecond: 200, readsPerSecond: 200, waitsPerAddress: 200, trackerLoginsPerMinute: 10, trackerReadsPerSecond: 20 },
  cors: { origins: [] },
  log: { level: "info" },
  metrics: { enabled: true },
};

/**
 * A fresh temporary folder for each test of the calling file (see processesPerTest), `dir` inside
 * a test; `yamlFile` writes `source` to a file of that folder and returns its path.
 */
export function configFolderPerTest(): { readonly dir: string; yamlFile(source: string, name?: string): string } {
  const work = processesPerTest("folio-config-");
  return {
    get dir() {
      return work.dir;
    },
    yamlFile(source, name = "service.yaml") {
      const path = join(work.dir, name);
      writeFileSync(path, source);
      return path;
    },
  };
}
