// The keys of the configuration file: what is not a known key is refused (see config.ts).

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The file's mappings with dotted keys spelt out as nested ones: `server.port: 9999` is
 * `server: {port: 9999}`, as the keys are written in the README, and may stand beside nested ones
 * (`service.tracker.api-url` next to a `service:` section). A key given both ways, or a section
 * given a value, returns a message naming it instead.
 */
export function expandDottedKeys(tree: unknown): { tree: unknown } | { problem: string } {
  if (!isMapping(tree)) return { tree };
  const out: Mapping = {};
  for (const [key, value] of Object.entries(tree)) {
    const expanded = expandDottedKeys(value);
    if ("problem" in expanded) return expanded;
    const problem = merge(out, key.split("."), expanded.tree, "");
    if (problem !== undefined) return { problem };
  }
  return { tree: out };
}

/** Puts `value` at `path` below `node` (`prefix` names `node`), merging mappings; a message when a key is given twice. */
function merge(node: Mapping, path: string[], value: unknown, prefix: string): string | undefined {
  const [part = "", ...rest] = path;
  const key = prefix === "" ? part : `${prefix}.${part}`;
  const existing = node[part];
  if (rest.length > 0) {
    if (existing === undefined || existing === null) node[part] = {};
    else if (!isMapping(existing)) return `${key} is given a value and keys below it`;
    return merge(node[part] as Mapping, rest, value, key);
  }
  // An empty section (`service:`) beside dotted keys into it sets nothing.
  if (existing === undefined || (existing === null && isMapping(value))) {
    node[part] = value;
    return undefined;
  }
  if (value === null && isMapping(existing)) return undefined;
  if (!isMapping(existing) || !isMapping(value)) return `${key} is given twice (as a dotted key and nested, or twice)`;
  for (const [child, childValue] of Object.entries(value)) {
    const problem = merge(existing, [child], childValue, key);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * Refuses what the file holds beyond the known keys: a misspelt key would otherwise be ignored
 * silently (a misspelt password-hash key means "no password"). Returns the message (naming the key
 * and the known key nearest to it), or undefined when every key is known.
 */
export function findUnknownKey(tree: unknown, known: string[]): string | undefined {
  if (tree === null || typeof tree !== "object" || Array.isArray(tree)) return "expects a mapping of keys at the top";
  const walk = (node: Record<string, unknown>, prefix: string): string | undefined => {
    for (const [name, value] of Object.entries(node)) {
      const key = prefix + name;
      if (known.includes(key)) continue;
      const isBranch = known.some((candidate) => candidate.startsWith(`${key}.`));
      if (isBranch && value !== null && typeof value === "object" && !Array.isArray(value)) {
        const found = walk(value as Record<string, unknown>, `${key}.`);
        if (found !== undefined) return found;
        continue;
      }
      // An empty section (`service:` with nothing below) sets nothing and harms nothing.
      if (isBranch && value === null) continue;
      if (isBranch) return `${key} expects a mapping of keys`;
      return `unknown key ${key} (did you mean ${nearest(key, known)}?)`;
    }
    return undefined;
  };
  return walk(tree as Record<string, unknown>, "");
}

/**
 * The known key nearest to `key`: the least edit distance to any run of its segments (so `port`
 * finds `server.port` and a misspelt section `service.storrage` finds `service.storage.url`); the
 * first one on a tie.
 */
function nearest(key: string, candidates: string[]): string {
  let best = candidates[0] ?? "";
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const parts = candidate.split(".");
    for (let from = 0; from < parts.length; from++) {
      for (let to = from + 1; to <= parts.length; to++) {
        const distance = editDistance(key, parts.slice(from, to).join("."));
        if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
      }
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
