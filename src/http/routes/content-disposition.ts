/**
 * `Content-Disposition: attachment` for a file name (RFC 6266): `filename` with an ASCII stand-in
 * (other characters as `_`), and, when the name is not plain ASCII, `filename*` with its UTF-8 bytes
 * percent-encoded (RFC 8187), which browsers prefer.
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7E]/g, "_").replace(/["\\]/g, "_");
  if (ascii === fileName) return `attachment; filename="${ascii}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc8187(fileName)}`;
}

/** RFC 8187's value-chars: letters, digits and `!#$&+-.^_`|~` stay, every other byte is %XX. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}
