import process from "node:process";

// Loaded into every server the benchmark starts (`node --import`): when the benchmark process
// dies without killing its children (SIGKILL), the stdin pipe closes and this process ends too.
// The handle is unref'd, so it never keeps a process alive that would otherwise exit.
if (!process.stdin.isTTY) {
  process.stdin.on("end", () => process.exit(3));
  process.stdin.on("error", () => process.exit(3));
  process.stdin.resume();
  if (typeof process.stdin.unref === "function") process.stdin.unref();
}
