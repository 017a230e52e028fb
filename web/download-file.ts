/** Hands an exported file to the browser as a download (a Blob under the file's own name and type). */
import type { ExportedFile } from "../src/client/index.js";

export function saveFile(file: ExportedFile): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.mediaType }));
  const link = document.createElement("a");
  link.href = url;
  link.download = file.fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
