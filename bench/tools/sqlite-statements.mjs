// Profiling aid (issue 40): the SQLite statements one adapter's W1 run executes, counted at the
// driver (better-sqlite3), with the CPU time (user + system, this process) each kind takes per
// run: mean, median, p99 and max per call, and the calls over 200 µs. Statements are wrapped
// when prepared, so the counters are installed before any store opens. Each call is timed with
// two `process.cpuUsage()` calls (about 1 µs each): read the per-statement split, not the total.
// `--warmup N` runs N runs first, e.g. 11000 to measure a store at its bound of 10,000 finished
// runs (each run's end then evicts). CPU time counts every thread of the process: a call during
// which V8 compiles or marks on its helper threads reads long (the tail of the first statement of
// a commit, mostly).
// `--yield-each-call`: the fake model yields a turn per call, as a real model's I/O does, so a
// journaled run commits once per step (the reads a commit makes before its writes show per step).
// Usage: node bench/tools/sqlite-statements.mjs [--adapter tinyagents-sqlite] [--steps 1]
//        [--runs 3000] [--warmup 300] [--yield-each-call]
import { createRequire } from "node:module";
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { newCounters } from "../lib/script.mjs";

const args = parseArgs();
const Database = createRequire(import.meta.resolve("@tinyagents/harness/sqlite"))("better-sqlite3");
const stats = new Map();
let counting = false;
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  const key = sql.replace(/\s+/g, " ").slice(0, 90);
  for (const method of ["run", "get", "all"]) {
    const original = statement[method].bind(statement);
    statement[method] = (...params) => {
      if (!counting) return original(...params);
      const start = cpu();
      try {
        return original(...params);
      } finally {
        const took = cpu() - start;
        const name = `${method} ${key}`;
        let entry = stats.get(name);
        if (entry === undefined) {
          entry = { us: 0, samples: [] };
          stats.set(name, entry);
        }
        entry.us += took;
        entry.samples.push(took);
      }
    };
  }
  return statement;
};

const adapter = await loadAdapter(args.adapter ?? "tinyagents-sqlite");
const counters = newCounters();
const steps = intArg(args, "steps", 1);
const run = adapter.createLoop({ steps, yieldEachCall: args["yield-each-call"] !== undefined, counters });
const runs = intArg(args, "runs", 3000);
const warmup = intArg(args, "warmup", 300);
for (let i = 0; i < warmup; i++) await run();
counting = true;
const start = cpu();
for (let i = 0; i < runs; i++) await run();
await adapter.settle?.();
const total = cpu() - start;
counting = false;
let inSql = 0;
let calls = 0;
console.log(`${adapter.info.name}, S=${steps}, ${runs} runs after ${warmup}: per run, CPU µs`);
for (const [key, { us, samples }] of [...stats].sort((a, b) => b[1].us - a[1].us)) {
  inSql += us;
  calls += samples.length;
  samples.sort((a, b) => a - b);
  const q = (f) => samples[Math.floor(f * (samples.length - 1))];
  const slow = samples.filter((x) => x > 200).length;
  console.log(
    `${(samples.length / runs).toFixed(2).padStart(6)} calls ${(us / runs).toFixed(1).padStart(6)} µs ` +
      `(per call median ${q(0.5)}, p99 ${q(0.99)}, max ${q(1)}, ${slow} over 200)  ${key}`,
  );
}
console.log(
  `${(calls / runs).toFixed(1)} statements, ${(inSql / runs).toFixed(1)} µs in them, ` +
    `${(total / runs).toFixed(1)} µs CPU per run in all (timers included)`,
);
