// Prints a bcrypt hash of a password read from standard input, for service.master-password.hash.
import bcrypt from "bcryptjs";

const COST = 12;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > 4096) throw new Error("the password is longer than 4096 bytes");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

if (process.stdin.isTTY) process.stderr.write("password (end with Enter, then Ctrl-D): ");
const password = await readStdin();
if (password === "") {
  process.stderr.write("no password given on standard input\n");
  process.exit(2);
}
if (Buffer.byteLength(password, "utf8") > 72) process.stderr.write("note: bcrypt uses only the first 72 bytes of a password\n");
process.stdout.write(`${await bcrypt.hash(password, COST)}\n`);
