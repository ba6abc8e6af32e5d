// `npm run bench:check`: a short perf regression check (issue 40). For S = 1, 10, 100 it runs the
// W1 loop of the hand-written loop, the SQLite storage floor and three tinyagents wirings in ONE
// fresh process each (three processes per S), in alternating rounds (workloads/w1-alternating.mjs,
// CPU time: steadier than wall time on a shared machine), and compares the RATIOS below — never
// absolute times, which move 2-10× on a shared machine — with the committed
// baseline bench/results/check-baseline.json. It fails (exit 1) when any ratio is 25 % or more
// above its baseline. About a minute on 2 cores. Not part of `npm test`.
//
//   npm run bench:check                     build, then check
//   node bench/check.mjs                    check against the built packages/*/dist
//   node bench/check.mjs --update           measure and write a new baseline (commit it with the
//                                           change that moved it, saying why)
//   node bench/check.mjs --tolerance 0.4    another tolerance (default 0.25)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "./lib/args.mjs";
import { BENCH_DIR, runChild } from "./lib/child.mjs";
import { describeEnvironment } from "./lib/machine.mjs";
import { median } from "./lib/stats.mjs";

const ADAPTERS = ["hand-written", "tinyagents", "sqlite-floor", "tinyagents-sqlite", "tinyagents-production"];
/** What is compared: a/b, µs per step of a over b's, each round's pair run back to back. */
const RATIOS = [
  "tinyagents/hand-written", // the in-memory front door over the hand-written loop
  "tinyagents-sqlite/sqlite-floor", // the CLI wiring over its storage floor
  "tinyagents-production/sqlite-floor", // + retry, budget, usage over the same floor
  "tinyagents-production/tinyagents-sqlite", // what the middleware adds to a journaled step
];
const STEPS = [1, 10, 100];
/** Processes per S; the check uses the median ratio over them. */
const PROCS = 3;

const args = parseArgs();
const tolerance = args.tolerance === undefined ? 0.25 : Number(args.tolerance);
if (!Number.isFinite(tolerance) || tolerance <= 0) throw new Error("--tolerance must be a positive number");
const baselineFile = join(BENCH_DIR, "results", "check-baseline.json");

const measured = {};
for (const steps of STEPS) {
  const perProcess = [];
  for (let p = 0; p < PROCS; p++) {
    const result = await runChild("workloads/w1-alternating.mjs", [
      "--adapters",
      ADAPTERS.join(","),
      "--steps",
      String(steps),
      "--clock",
      "cpu",
      "--rounds",
      "9",
      "--ratios",
      RATIOS.join(","),
    ]);
    perProcess.push(result.ratios);
  }
  for (const ratio of RATIOS) measured[`S=${steps} ${ratio}`] = median(perProcess.map((r) => r[ratio]));
}

const fmt = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
if (args.update === true) {
  const env = describeEnvironment(join(BENCH_DIR, ".."), BENCH_DIR);
  writeFileSync(
    baselineFile,
    `${JSON.stringify({ env: { node: env.node, cpu: env.cpu, nproc: env.nproc, commit: env.commit, date: env.date, loadavg: env.loadavg }, ratios: measured }, null, 2)}\n`,
  );
  for (const [key, value] of Object.entries(measured)) console.log(`${key.padEnd(50)} ${fmt(value)}×`);
  console.log(`wrote ${baselineFile}`);
} else {
  if (!existsSync(baselineFile)) throw new Error(`no baseline: run \`node bench/check.mjs --update\` first`);
  const baseline = JSON.parse(readFileSync(baselineFile, "utf8")).ratios;
  const regressions = [];
  for (const [key, value] of Object.entries(measured)) {
    const base = baseline[key];
    if (base === undefined) {
      console.log(`${key.padEnd(50)} ${fmt(value)}× (no baseline)`);
      continue;
    }
    const change = value / base - 1;
    const bad = change >= tolerance;
    if (bad) regressions.push(key);
    console.log(
      `${key.padEnd(50)} ${fmt(value)}× vs baseline ${fmt(base)}× (${change >= 0 ? "+" : ""}${(change * 100).toFixed(0)} %)${bad ? "  REGRESSION" : ""}`,
    );
  }
  if (regressions.length > 0) {
    console.log(
      `\nbench:check FAILED: ${regressions.length} ratio(s) ${Math.round(tolerance * 100)} % or more above the baseline`,
    );
    process.exitCode = 1;
  } else
    console.log(`\nbench:check passed: every ratio within ${Math.round(tolerance * 100)} % of the baseline`);
}
