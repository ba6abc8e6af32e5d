#!/usr/bin/env node
// Flake hunting as a command (issue 34): `npm run test:stress [-- options] [vitest filters]`.
//
// Runs the unit tier N times AT ONCE (default 5; one Vitest worker each) while busy-loop
// processes keep every core saturated (default one per core), then lists every test whose outcome
// was not the same in all repetitions, with the fast-check seed each repetition ran with (replay a property failure with
// `FC_SEED=<seed> npx vitest run <file>`). Exit code 0 when every outcome was stable, 1 when one
// changed, 2 on bad usage or when a repetition produced no report.
//
// Options:
//   --runs N        repetitions, run concurrently (default 5)
//   --load N        busy-loop processes beside them (default: one per core; 0 for none)
//   --vary-seed     give each repetition its own fast-check seed (default: all use the suite's
//                   fixed seed, so a change is a race or a time dependence, not new inputs)
//   --project NAME  the vitest project (default unit)
//   anything else   passed to vitest: file filters (`packages/harness/test/steering`), -t ...
//
// Each repetition writes a JSON report under a temp directory (kept when something changed, its
// path printed). The unit tier's 5 s per-test limit stays on: a test that needs more than that
// under load is reported; it waits on real time somewhere.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareOutcomes, outcomesOf, repetitionArgs } from "./lib/stress-outcomes.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const vitest = join(root, "node_modules/vitest/vitest.mjs");
const DEFAULT_SEED = 20_250_611; // test/setup/fast-check.ts

function parseArgs(argv) {
  const options = { runs: 5, load: availableParallelism(), varySeed: false, project: "unit", vitestArgs: [] };
  const int = (flag, value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) usage(`${flag} takes a whole number, got ${JSON.stringify(value)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--runs") options.runs = int(arg, argv[++i]);
    else if (arg === "--load") options.load = int(arg, argv[++i]);
    else if (arg === "--vary-seed") options.varySeed = true;
    else if (arg === "--project") options.project = argv[++i] ?? usage("--project takes a name");
    else if (arg === "--help" || arg === "-h") usage();
    else options.vitestArgs.push(arg);
  }
  if (options.runs < 2) usage("--runs must be at least 2 (outcomes are compared between repetitions)");
  return options;
}

function usage(problem) {
  if (problem !== undefined) console.error(`test:stress: ${problem}`);
  console.error(
    "usage: npm run test:stress -- [--runs N] [--load N] [--vary-seed] [--project NAME] [vitest filters...]",
  );
  process.exit(2);
}

/** A process that keeps one core busy until killed. */
function burner() {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

/** One repetition: vitest with a JSON report; resolves with its exit code (never rejects). */
function repetition(index, seed, reportFile, options) {
  const args = repetitionArgs(vitest, options.project, reportFile, options.vitestArgs);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, FC_SEED: String(seed) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on("close", (code) => resolve({ index, seed, code, stderr }));
  });
}

/** The outcomes in one repetition's JSON report. */
async function outcomes(reportFile) {
  return outcomesOf(JSON.parse(await readFile(reportFile, "utf8")), root);
}

const firstLine = (text) =>
  String(text)
    .split("\n")
    .find((l) => l.trim() !== "") ?? "";

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const dir = await mkdtemp(join(tmpdir(), "tinyagents-stress-"));
  const seeds = Array.from({ length: options.runs }, (_, i) =>
    options.varySeed ? DEFAULT_SEED + 1 + i * 7919 : Number(process.env.FC_SEED ?? DEFAULT_SEED),
  );
  console.log(
    `test:stress: ${options.runs} repetitions of the ${options.project} tier at once, beside ${options.load} busy-loop process(es); seeds ${[...new Set(seeds)].join(", ")}`,
  );
  const burners = Array.from({ length: options.load }, burner);
  const stopBurners = () => {
    for (const b of burners) b.kill("SIGKILL");
  };
  process.on("exit", stopBurners);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      stopBurners();
      process.exit(130);
    });
  }
  const started = performance.now();
  const runs = await Promise.all(
    seeds.map((seed, i) => repetition(i + 1, seed, join(dir, `run-${i + 1}.json`), options)),
  );
  stopBurners();
  const seconds = ((performance.now() - started) / 1000).toFixed(0);

  const results = [];
  for (const run of runs) {
    try {
      results.push({ ...run, ...(await outcomes(join(dir, `run-${run.index}.json`))) });
    } catch {
      console.error(
        `repetition ${run.index} (exit ${run.code}) wrote no report; its stderr ends with:\n${run.stderr}`,
      );
      console.error(`reports kept in ${dir}`);
      process.exit(2);
    }
  }

  const { tests, changed, alwaysFailed } = compareOutcomes(results);
  console.log(`${tests} tests x ${options.runs} repetitions in ${seconds} s`);
  if (alwaysFailed.length > 0) {
    console.log(`\nfailed in every repetition (not a flake; run it alone): ${alwaysFailed.length}`);
    for (const key of alwaysFailed) console.log(`  ${key}`);
  }
  if (changed.length === 0) {
    console.log("outcomes stable: no test changed between repetitions");
    await rm(dir, { recursive: true, force: true });
    process.exit(alwaysFailed.length > 0 ? 1 : 0);
  }
  console.log(`\noutcome changed between repetitions: ${changed.length}`);
  for (const { key, statuses } of changed) {
    console.log(`  ${key}`);
    results.forEach((r, i) => {
      const message = r.messages.get(key);
      console.log(
        `    run ${r.index} (FC_SEED=${r.seed}): ${statuses[i]}${message ? ` - ${firstLine(message).slice(0, 200)}` : ""}`,
      );
    });
  }
  console.log(`\nreports kept in ${dir}`);
  process.exit(1);
}

await main();
