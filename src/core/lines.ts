/**
 * The line model (docs/line-model.md#lines-and-text): a text is its lines joined by "\n", after every "\r\n" became "\n".
 * Splitting never yields an empty list, so every text, the empty one included, has at least one line.
 */

/** Turns every "\r\n" into "\n". A lone "\r" stays: it is content, not a line break. */
export function normalizeLineEndings(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

/**
 * Splits a text into lines: `""` is `[""]`, `"a\n"` is `["a", ""]`, `"a\r\nb"` is `["a", "b"]`.
 * The inverse of {@link joinLines} for every text without "\r\n".
 */
export function splitLines(text: string): string[] {
  return normalizeLineEndings(text).split("\n");
}

/**
 * Joins lines with "\n". Note that `[]` and `[""]` both give `""`: a list of ops that deletes every
 * line leaves `[]`, whose text splits back to `[""]`.
 */
export function joinLines(lines: readonly string[]): string {
  return lines.join("\n");
}
