import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { SETTINGS, variablesOf } from "../../src/config/schema.js";
import { REPO_ROOT } from "../support/server-process.js";

// compose.yaml cannot run here (no Docker engine, no registry for the postgres and nginx images), so
// this checks it as a reader would: the services and how they hang together, against the files it
// names (Containerfile, deploy/nginx.conf) and the configuration the service really reads.

interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  network_mode?: string;
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
}

const text = readFileSync(join(REPO_ROOT, "compose.yaml"), "utf8");
const compose = parse(text, { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const nginxConf = readFileSync(join(REPO_ROOT, "deploy/nginx.conf"), "utf8");

/** Compose's `${NAME:-default}` with nothing set: what a `docker compose up` without a .env file runs. */
const interpolate = (value: string) => value.replace(/\$\{(\w+):-([^}]*)\}/g, (_, _name: string, fallback: string) => fallback);
const instances = ["folio-1", "folio-2"] as const;
const environmentOf = (name: string) => Object.fromEntries(Object.entries(compose.services[name]!.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]));

describe("compose.yaml", () => {
  it("runs PostgreSQL, nginx and two instances built from the Containerfile", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["folio-1", "folio-2", "nginx", "postgres"]);
    for (const name of instances) {
      const service = compose.services[name]!;
      expect({ build: service.build, dependsOn: service.depends_on, network: service.network_mode, grace: service.stop_grace_period }).toEqual({
        build: { context: ".", dockerfile: "Containerfile" },
        dependsOn: { postgres: { condition: "service_healthy" }, nginx: { condition: "service_started" } },
        network: "service:nginx",
        // The drain's own limit is 15 s (README, "Running in a container"); the runtime must wait longer before SIGKILL.
        grace: "20s",
      });
    }
    expect(existsSync(join(REPO_ROOT, "Containerfile"))).toBe(true);
  });

  it("gives nginx deploy/nginx.conf unchanged, and the instances the ports of its upstream servers", () => {
    const nginx = compose.services.nginx!;
    expect({ volumes: nginx.volumes, ports: nginx.ports }).toEqual({ volumes: ["./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"], ports: ["127.0.0.1:8080:80"] });
    expect(nginxConf).toMatch(/^\s*listen 80;$/m);
    const upstream = /upstream folio \{([^}]*)\}/.exec(nginxConf)?.[1] ?? "";
    const servers = [...upstream.matchAll(/^\s*server (127\.0\.0\.1):(\d+) /gm)].map(([, host, port]) => `${host}:${port}`);
    expect(servers).toEqual(instances.map((name) => `${environmentOf(name).SERVER_HOST}:${environmentOf(name).SERVER_PORT}`));
  });

  it("points every instance at the compose PostgreSQL with settings the service accepts", () => {
    const postgres = compose.services.postgres!;
    expect(postgres.image).toMatch(/^postgres:15(-|$)/);
    expect(postgres.healthcheck?.test).toEqual(["CMD", "pg_isready", "--username=folio", "--dbname=folio"]);
    expect(postgres.volumes).toEqual(["postgres-data:/var/lib/postgresql/data"]);
    expect(Object.keys(compose.volumes)).toEqual(["postgres-data"]);
    const database = Object.fromEntries(Object.entries(postgres.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]));

    const known = new Set(SETTINGS.flatMap((setting) => variablesOf(setting)));
    for (const name of instances) {
      const environment = environmentOf(name);
      expect(Object.keys(environment).filter((key) => !known.has(key))).toEqual([]);
      const config = loadConfig({ env: environment, file: null });
      const url = new URL(config.storage.url);
      expect({ host: url.host, user: url.username, password: url.password, database: url.pathname, schema: url.searchParams.get("schema") }).toEqual({
        host: "postgres:5432",
        user: database.POSTGRES_USER,
        password: database.POSTGRES_PASSWORD,
        database: `/${database.POSTGRES_DB}`,
        schema: "folio",
      });
      expect(config.server.trustProxy).toEqual(["127.0.0.1"]);
    }
  });
});

describe("the Containerfile's configuration", () => {
  it("sets only variables the service reads, to values it accepts: every address, port 8080, SQLite in /data", () => {
    const containerfile = readFileSync(join(REPO_ROOT, "Containerfile"), "utf8");
    const block = /^ENV ((?:.*\\\n)*.*)$/m.exec(containerfile)?.[1] ?? "";
    const environment = Object.fromEntries([...block.matchAll(/(\w+)=(\S+)/g)].map(([, key, value]) => [key!, value!]));
    const { NODE_ENV, ...service } = environment;
    expect(NODE_ENV).toBe("production");
    const config = loadConfig({ env: service, file: null });
    expect({ host: config.server.host, port: config.server.port, storage: config.storage.url }).toEqual({ host: "0.0.0.0", port: 8080, storage: "sqlite:/data/folio.db" });
    expect(containerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(containerfile).toMatch(/^EXPOSE 8080$/m);
  });
});
