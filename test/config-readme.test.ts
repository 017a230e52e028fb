import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SETTINGS, variablesOf } from "../src/config/schema.js";

/** The README's configuration table: the first three cells (key, variables, default) of each row. */
function readmeRows(): string[] {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Configuration"));
  const table = section.slice(section.indexOf("| key |"));
  return table
    .split("\n")
    .slice(2)
    .filter((line, index, all) => line.startsWith("|") && all.slice(0, index).every((before) => before.startsWith("|")))
    .map((line) => line.split(" | ").slice(0, 3).join(" | ") + " |");
}

function shown(value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return "none";
  return `\`${JSON.stringify(value).replace(/^"|"$/g, "")}\``;
}

/** The row the schema implies for one key. */
function schemaRow(setting: (typeof SETTINGS)[number]): string {
  const [own, ...aliases] = variablesOf(setting);
  const variables = `\`${own}\`` + (aliases.length > 0 ? ` (also ${aliases.map((alias) => `\`${alias}\``).join(", ")})` : "");
  return `| \`${setting.key}\` | ${variables} | ${shown(setting.default)} |`;
}

describe("README configuration table", () => {
  it("lists exactly the schema's keys, in its order, with their variables and defaults", () => {
    expect(readmeRows()).toEqual(SETTINGS.map(schemaRow));
  });
});
