import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { servedOpenApi } from "./served-document.js";

// Redocly CLI (a devDependency, one bundled package) lints the document the service serves, with
// the recommended rules (redocly.yaml). It runs offline: no telemetry, no update check.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const REDOCLY = join(ROOT, "node_modules/@redocly/cli/bin/cli.js");

interface Problem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer: string }[];
}

async function lint(document: object): Promise<Problem[]> {
  const dir = await mkdtemp(join(tmpdir(), "folio-openapi-"));
  try {
    const file = join(dir, "openapi.json");
    await writeFile(file, JSON.stringify(document));
    const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
    const args = [REDOCLY, "lint", file, "--config", join(ROOT, "redocly.yaml"), "--format", "json"];
    // Redocly exits 1 when it finds an error: the report on stdout says which.
    const { stdout } = await promisify(execFile)(process.execPath, args, { env, cwd: dir, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
    );
    return (JSON.parse(stdout) as { problems: Problem[] }).problems;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const brief = (problem: Problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer ?? ""}: ${problem.message}`;

describe("the served OpenAPI document under Redocly's recommended rules", () => {
  it("has no error and no warning", async () => {
    const problems = await lint(await servedOpenApi());

    expect(problems.filter((problem) => problem.severity === "error").map(brief)).toEqual([]);
    // Licence and contact are there, and the interface's bearerAuth, applied nowhere, waits outside
    // securitySchemes (docs/openapi.md): not a warning left.
    expect(problems.map(brief).sort()).toEqual([]);
  }, 90_000);

  it("finds the faults it is there for: an operation without security, a response without a description", async () => {
    const document = (await servedOpenApi()) as unknown as { security?: unknown; paths: Record<string, Record<string, { responses: Record<string, object> }>> };
    delete document.security;
    const info = document.paths["/api/v1/info"]!.get!;
    info.responses["200"] = { content: {} };

    const rules = new Set((await lint(document)).filter((problem) => problem.severity === "error").map((problem) => problem.ruleId));

    expect([...rules].sort()).toEqual(["security-defined", "struct"]);
  }, 90_000);
});
