// Profiling aid (issue 40): the WAL frames (pages) one adapter's 1-step runs write per commit,
// by B-tree — what a commit's cost and the checkpoints' follow. After `--warmup` runs, the WAL
// is checkpointed and truncated and auto-checkpoints are turned off on the adapter's connection,
// then `--runs` runs write their frames; each frame's page number is mapped to its table or
// index with SQLite's `dbstat` table. Page 1 (`sqlite_schema`) is rewritten whenever the file
// grows (its header holds the page count).
// Usage: node bench/tools/wal-frames.mjs [--adapter tinyagents-sqlite] [--steps 1]
//        [--runs 200] [--warmup 3000]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { newCounters } from "../lib/script.mjs";

const args = parseArgs();
const Database = createRequire(import.meta.resolve("@tinyagents/harness/sqlite"))("better-sqlite3");
const connections = [];
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  if (!connections.includes(this)) connections.push(this);
  return prepare.call(this, sql);
};
const adapter = await loadAdapter(args.adapter ?? "tinyagents-sqlite");
const run = adapter.createLoop({ steps: intArg(args, "steps", 1), counters: newCounters() });
for (let i = 0, n = intArg(args, "warmup", 3000); i < n; i++) await run();
await adapter.settle?.();
const db = connections.find((c) => c.open); // the floor's schema-creating connection is closed
db.pragma("wal_checkpoint(TRUNCATE)");
db.pragma("wal_autocheckpoint = 0");
const runs = intArg(args, "runs", 200);
for (let i = 0; i < runs; i++) await run();
await adapter.settle?.();
const wal = readFileSync(`${db.name}-wal`);
const pageSize = wal.readUInt32BE(8);
const frames = [];
for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize)
  frames.push({ page: wal.readUInt32BE(at), commit: wal.readUInt32BE(at + 4) !== 0 });
const commits = frames.filter((f) => f.commit).length;
const btree = new Map();
for (const row of prepare.call(db, "SELECT name, pageno, pagetype FROM dbstat").all())
  btree.set(row.pageno, `${row.name} ${row.pagetype}`);
const byBtree = new Map();
for (const { page } of frames) {
  const name = btree.get(page) ?? `page ${page} (free or new)`;
  byBtree.set(name, (byBtree.get(name) ?? 0) + 1);
}
console.log(
  `${adapter.info.name}: ${frames.length} frames over ${commits} commits (${runs} runs) = ` +
    `${(frames.length / commits).toFixed(2)} per commit`,
);
for (const [name, n] of [...byBtree].sort((a, b) => b[1] - a[1]))
  console.log(`${(n / commits).toFixed(2).padStart(7)}  ${name}`);
process.exit(0); // the adapters' stores close on exit
