// `npm run demo-tracker [-- --port <n>]`: a fake Taiga on 127.0.0.1 with made-up users, projects and
// tickets (demo-world.ts), for trying the editor's tracker panel without a Taiga server (README,
// "Trying the tracker panel without Taiga"). Everything is in memory and gone when it stops. Not for deployments:
// the passwords are printed and kept in plain text.
import { DEMO_PROJECT, SAMPLE_DOCUMENT, seedDemoWorld } from "./demo-world.js";
import { FakeTaiga } from "./fake-taiga.js";

const DEFAULT_PORT = 8090;
const USAGE = "usage: npm run demo-tracker [-- --port <0-65535>]   (0 picks a free port)\n";

function parsePort(args: string[]): number {
  if (args.length === 0) return DEFAULT_PORT;
  const [flag, value, ...rest] = args;
  const port = Number(value);
  if (flag !== "--port" || rest.length > 0 || value === undefined || !/^\d+$/.test(value) || port > 65_535) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  return port;
}

const port = parsePort(process.argv.slice(2));
let fake: FakeTaiga;
try {
  fake = await FakeTaiga.start({
    port,
    record: false,
    onAnswer: (method, path, status) => process.stdout.write(`${method} ${path} -> ${status}\n`),
  });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  process.stderr.write(code === "EADDRINUSE" ? `port ${port} is in use: choose another with -- --port <n> (0 picks a free one)\n` : `${String(error)}\n`);
  process.exit(1);
}
const accounts = seedDemoWorld(fake);
const width = Math.max(...accounts.map((account) => `${account.username} / ${account.password}`.length));

process.stdout.write(
  [
    `Demo tracker (a fake Taiga with made-up data) listening on ${fake.apiUrl}`,
    "",
    "Start Folio against it in another terminal:",
    `  SERVICE_TRACKER_API_URL=${fake.apiUrl} npm start`,
    "then open http://127.0.0.1:8080/, create a document, and log in to the tracker panel as one of:",
    ...accounts.map((account) => `  ${`${account.username} / ${account.password}`.padEnd(width)}   member of ${account.projects.join(", ")}`),
    "",
    `A document that links tickets of ${DEMO_PROJECT} (paste it into the editor):`,
    ...SAMPLE_DOCUMENT.split("\n").map((line) => `    ${line}`),
    "",
    "Everything is kept in memory until this stops (Ctrl+C). The tracker's requests follow:",
    "",
  ].join("\n"),
);

const stop = () => {
  void fake.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
