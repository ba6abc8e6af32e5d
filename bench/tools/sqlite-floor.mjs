// Profiling aid (not part of the suite): how close the SQLite CLI wiring (`tinyagents-sqlite`)
// is to what better-sqlite3 itself costs for the same rows. In ONE process, alternating rounds:
//   bare       the `tinyagents` W1 loop (no persistence)
//   sqlite     the `tinyagents-sqlite` W1 loop (journal + status store, wired as the CLI wires them)
//   floor      raw better-sqlite3, same pragmas (WAL, synchronous NORMAL) and `log` table: BEGIN
//              IMMEDIATE + one INSERT per row of the exact JSON lines one sqlite run journaled + COMMIT
//   +json      the same, JSON.stringify-ing the parsed records inside the loop
//   +redact    the same, redacting them first (the default Redactor)
// Per step, wall and CPU (user + system) time, and ratios to bare. The floor has no status row.
// Usage: node bench/tools/sqlite-floor.mjs [--steps 100] [--rounds 7] [--ms 600]
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redactor } from "@tinyagents/harness/observability";
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { newCounters } from "../lib/script.mjs";

const args = parseArgs();
const steps = intArg(args, "steps", 100);
const rounds = intArg(args, "rounds", 7);
const ms = intArg(args, "ms", 600);
const Database = createRequire(import.meta.resolve("@tinyagents/harness/sqlite"))("better-sqlite3");

// Capture the journal rows one sqlite run writes (multi-row INSERTs included: every third parameter).
const lines = [];
let capturing = false;
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  if (sql.startsWith("INSERT INTO log")) {
    const run = statement.run.bind(statement);
    statement.run = (...params) => {
      if (capturing) for (let i = 2; i < params.length; i += 3) lines.push(params[i]);
      return run(...params);
    };
  }
  return statement;
};

const bare = (await loadAdapter("tinyagents")).createLoop({ steps, counters: newCounters() });
const sqlite = (await loadAdapter("tinyagents-sqlite")).createLoop({ steps, counters: newCounters() });
capturing = true;
await sqlite();
capturing = false;
const records = lines.map((line) => JSON.parse(line));

const dir = mkdtempSync(join(tmpdir(), "tinyagents-sqlite-floor-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
const db = new Database(join(dir, "floor.sqlite"));
process.once("exit", () => db.close());
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(
  "CREATE TABLE log (stream TEXT NOT NULL, offset INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (stream, offset))",
);
const insert = db.prepare("INSERT INTO log (stream, offset, value) VALUES (?, ?, ?)");
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
const redactor = new Redactor();
let streams = 0;
const rawRun = (toLine) => () => {
  const stream = `journal-run-${++streams}`;
  begin.run();
  for (let i = 0; i < records.length; i++) insert.run(stream, i, toLine(i));
  commit.run();
};
const variants = {
  bare,
  sqlite,
  floor: rawRun((i) => lines[i]),
  "+json": rawRun((i) => JSON.stringify(records[i])),
  "+redact": rawRun((i) => JSON.stringify(redactor.redact(records[i]))),
};

async function measure(fn) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let n = 0;
  while (performance.now() - start < ms) {
    await fn();
    n++;
  }
  const used = process.cpuUsage(cpu);
  return {
    wall: ((performance.now() - start) * 1000) / n / steps,
    cpu: (used.user + used.system) / n / steps,
  };
}

for (const fn of Object.values(variants)) await measure(fn); // warm-up
const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  const order = Object.keys(variants);
  if (r % 2 === 1) order.reverse();
  for (const name of order) samples[name].push(await measure(variants[name]));
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bytes = lines.reduce((sum, line) => sum + line.length, 0);
console.log(
  `S=${steps}: ${lines.length} journal rows per run (${(lines.length / steps).toFixed(1)} per step, ` +
    `${Math.round(bytes / steps)} B per step); medians of ${rounds} alternating rounds`,
);
const bareWall = median(samples.bare.map((s) => s.wall));
const bareCpu = median(samples.bare.map((s) => s.cpu));
for (const [name, list] of Object.entries(samples)) {
  const wall = median(list.map((s) => s.wall));
  const cpu = median(list.map((s) => s.cpu));
  console.log(
    `${name.padEnd(8)} wall ${wall.toFixed(1).padStart(7)} µs/step ${(wall / bareWall).toFixed(1).padStart(5)}x bare` +
      ` | cpu ${cpu.toFixed(1).padStart(7)} µs/step ${(cpu / bareCpu).toFixed(1).padStart(5)}x bare`,
  );
}
