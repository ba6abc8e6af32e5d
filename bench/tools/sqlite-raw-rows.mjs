// Profiling aid (issue 40): what the raw driver (better-sqlite3, the statements and pragmas of
// adapters/sqlite-floor.mjs: one IMMEDIATE transaction per run) costs to write the rows of one
// 1-step journaled run, before any JavaScript of ours — its journal records (4; 5 before
// usage.recorded folded into model.completed) and its status record, captured from a real
// `tinyagents-sqlite` run (the run id renamed per run) — against the floor's own rows (1 record,
// a 3-field status), and variants: the run without its `model.started` (and, in older builds,
// `usage.recorded`) records, and its records without the `runId` / `rootRunId` / `depth` fields.
// One process, alternating rounds, CPU time (or `--clock wall`); one database file per variant.
// Usage: node bench/tools/sqlite-raw-rows.mjs [--rounds 15] [--round-ms 120] [--clock cpu|wall]
import { createRequire } from "node:module";
import { loadAdapter } from "../adapters/index.mjs";
import { openFloorDb } from "../adapters/sqlite-floor.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { newCounters } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
const Database = createRequire(import.meta.resolve("@tinyagents/harness/sqlite"))("better-sqlite3");

// One tinyagents-sqlite run's rows, captured at the driver.
const captured = { lines: [], status: undefined, runId: undefined };
let capturing = false;
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  if (!/^INSERT INTO (log|run_status)\b/.test(sql)) return statement;
  const run = statement.run.bind(statement);
  statement.run = (...params) => {
    if (capturing && sql.startsWith("INSERT INTO log"))
      for (let i = 2; i < params.length; i += 3) captured.lines.push(params[i]);
    else if (capturing) {
      captured.runId = params[0];
      captured.status = JSON.parse(params.at(-1));
    }
    return run(...params);
  };
  return statement;
};
const ours = (await loadAdapter("tinyagents-sqlite")).createLoop({ steps: 1, counters: newCounters() });
capturing = true;
await ours();
capturing = false;
Database.prototype.prepare = prepare;

// Each variant's lines and status record as text split at the run id, joined per run (cheap).
const template = captured.runId;
const parts = (text) => text.split(template);
const withoutLineage = (line) => {
  const record = JSON.parse(line);
  delete record.runId;
  delete record.rootRunId;
  delete record.depth;
  return JSON.stringify(record);
};
/** A stored line's event, as JSON text (the line is a record with the event under `event`). */
const eventOf = (line) => JSON.stringify(JSON.parse(line).event);
const floorLine = JSON.stringify({
  type: "model.completed",
  step: 1,
  message: { role: "assistant", content: "done after 1 steps", toolCalls: [] },
});
/**
 * A loop writing `lines` and `status` (split at the run id, joined per run) in one transaction
 * per run, with the floor writer's statements (one single-row log INSERT per record, the status
 * INSERT), the status record passed already serialized.
 */
function variant(prefix, lines, status) {
  const db = openFloorDb();
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const insert = db.prepare("INSERT INTO log (stream, offset, value) VALUES (?, ?, ?)");
  const insertStatus = db.prepare(
    "INSERT INTO run_status (run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, record) VALUES (?, ?, NULL, 'completed', 0, ?, ?, ?, ?)",
  );
  const lineParts = lines.map(parts);
  const statusParts = parts(JSON.stringify(status));
  let runs = 0;
  return () => {
    const runId = `${prefix}${++runs}`;
    const at = Date.now();
    begin.run();
    for (let i = 0; i < lineParts.length; i++) insert.run(runId, i, lineParts[i].join(runId));
    insertStatus.run(runId, runId, at, at, at, statusParts.join(runId));
    commit.run();
  };
}
const ourLines = captured.lines;
const variants = {
  "floor's rows": variant("floor-run-", [floorLine], { runId: template, phase: "done" }),
  "a 1-step run's rows": variant("run-", ourLines, captured.status),
  // Its run.started, model.completed and run.completed (records 1, 4, 5 before usage.recorded
  // was folded into model.completed; 1, 3, 4 since).
  "no model.started/usage.recorded": variant(
    "run-",
    ourLines.filter((line) => !/^\{"type":"(model\.started|usage\.recorded)"/.test(eventOf(line))),
    captured.status,
  ),
  "without runId/rootRunId/depth": variant("run-", ourLines.map(withoutLineage), captured.status),
};
const wall = args.clock === "wall";
const now = () => {
  if (wall) return performance.now() * 1000;
  const u = process.cpuUsage();
  return u.user + u.system;
};
function timed(fn, ms) {
  const end = performance.now() + ms;
  const start = now();
  let n = 0;
  while (performance.now() < end) {
    fn();
    n++;
  }
  return (now() - start) / n;
}
for (const fn of Object.values(variants)) timed(fn, 300);
const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0, rounds = intArg(args, "rounds", 15); r < rounds; r++) {
  const order = Object.keys(variants);
  if (r % 2 === 1) order.reverse();
  for (const k of order) samples[k].push(timed(variants[k], intArg(args, "round-ms", 120)));
}
const floor = median(samples["floor's rows"]);
const bytes = (lines) => lines.reduce((n, line) => n + line.length, 0);
console.log(
  `a 1-step run: ${captured.lines.length} records, ${bytes(captured.lines)} B, status record ${JSON.stringify(captured.status).length} B`,
);
for (const [k, xs] of Object.entries(samples))
  console.log(
    `${k.padEnd(32)} ${median(xs).toFixed(1).padStart(7)} µs/commit ${wall ? "wall" : "CPU"}  ${(median(xs) / floor).toFixed(2)}× the floor's`,
  );
