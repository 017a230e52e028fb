/**
 * The few pieces of XML that writing and checking OPML needs (outline-opml.ts). Reading is
 * @rgrove/parse-xml's; these write escaped text and attributes, and measure a file's nesting before
 * it is parsed. Pure: no DOM, no I/O.
 */

/** Characters XML 1.0 cannot carry, not even as a character reference: control characters, U+FFFE/U+FFFF, lone surrogates. */
// eslint-disable-next-line no-control-regex -- these control characters are what the pattern is for
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with every character XML cannot carry replaced by U+FFFD. */
export function xmlSafe(text: string): string {
  return text.replace(NOT_XML, "\uFFFD");
}

/** Text for an element's content. */
export function escapeXmlText(text: string): string {
  return xmlSafe(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Text for a double-quoted attribute: tabs and line breaks as references, or a parser would turn them into spaces. */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text).replace(/"/g, "&quot;").replace(/\t/g, "&#9;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;");
}

/**
 * The deepest element nesting of an XML text, counted in one pass without parsing (comments,
 * CDATA sections, processing instructions and quoted attribute values skipped), stopping as soon as
 * it passes `limit`. A malformed text gives some number; the parser that follows names its fault.
 */
export function xmlDepth(xml: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let at = xml.indexOf("<");
  while (at >= 0 && at < xml.length) {
    if (xml.startsWith("<!--", at)) at = after(xml, "-->", at + 4);
    else if (xml.startsWith("<![CDATA[", at)) at = after(xml, "]]>", at + 9);
    else if (xml.startsWith("<?", at)) at = after(xml, "?>", at + 2);
    else if (xml.startsWith("</", at)) {
      depth -= 1;
      at = after(xml, ">", at + 2);
    } else {
      const end = tagEnd(xml, at + 1);
      if (xml[at + 1] !== "!" && xml[end - 2] !== "/") depth += 1;
      deepest = Math.max(deepest, depth);
      if (deepest > limit) return deepest;
      at = end;
    }
    at = at < 0 ? -1 : xml.indexOf("<", at);
  }
  return deepest;
}

/** The position after `token` at or after `from`, or -1. */
function after(xml: string, token: string, from: number): number {
  const found = xml.indexOf(token, from);
  return found < 0 ? -1 : found + token.length;
}

/** The position after the `>` that ends a tag starting before `from`, skipping quoted values. */
function tagEnd(xml: string, from: number): number {
  let quote: string | undefined;
  for (let k = from; k < xml.length; k++) {
    const char = xml[k];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === ">") return k + 1;
  }
  return xml.length;
}
