/**
 * Baseline server: bare Fastify with one SQLite write transaction per request, at the service's
 * durability setting (WAL, synchronous=FULL): POST /write stores the body as one row.
 */
import BetterSqlite3 from "better-sqlite3";
import Fastify from "fastify";

const path = process.env.BENCH_DB;
if (!path) throw new Error("BENCH_DB is not set");
const db = new BetterSqlite3(path);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY, client_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)");
const insert = db.prepare("INSERT INTO writes (client_id, seq, body, created_at) VALUES (?, ?, ?, ?)");
const write = db.transaction((clientId: string, seq: number, body: string) => insert.run(clientId, seq, body, Date.now()).lastInsertRowid);

const app = Fastify({ logger: false });
app.get("/json", async () => ({ ok: true, name: "bare-sqlite", version: 1 }));
app.post<{ Body: { clientId?: string; seq?: number } }>("/write", async (request) => {
  const id = write(String(request.body.clientId ?? "anonymous"), Number(request.body.seq ?? 0), JSON.stringify(request.body));
  return { version: Number(id), opsSinceBase: [] };
});

const address = await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(`${JSON.stringify({ msg: `listening on ${address}`, address })}\n`);
process.once("SIGTERM", () =>
  void app.close().then(() => {
    db.close();
    process.exit(0);
  }),
);
