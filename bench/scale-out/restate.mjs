// Scale-out on Restate (issue 18 item 7): the conformance scenario agent (4 model calls, 3 tool
// calls, 50 ms fake model, 20 ms tool, the deploy approved by rule) run as Restate workflows by
// worker processes behind one deployment URL (@tinyagents/restate/testing's pool), against a
// restate-server from node_modules on loopback. Measures:
//   - runs/s with 1, 2 and 4 workers (all runs started at once, up to CONCURRENCY in flight);
//   - engine overhead per step: sequential runs on one worker against the same agent in process,
//     in this same invocation (per step = per model or tool call, 7 per run);
//   - recovery latency after SIGKILL inside a model step (the worker freezes inside the step, is
//     killed, and the clock runs until a survivor starts that step again), p50/p99;
//   - the duplicate-execution ledger: a worker SIGKILLed in the middle of a throughput round
//     (plus the recoveries above), judged with checkLedger;
//   - journal bytes per step: Restate's introspection SQL (sys_journal.raw_length) over every
//     completed run's journal.
// Standalone, against the BUILT packages: `npm run build` first. Markdown to stdout, JSON to
// bench/results/scale-out-restate.json.
//   node bench/scale-out/restate.mjs            full (< 2 min)
//   node bench/scale-out/restate.mjs --quick    smoke (< 30 s)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CONFORMANCE_INPUT,
  checkLedger,
  createConformanceAgent,
  readLedger,
} from "@tinyagents/harness/testkit";
import { RestateAgentClient } from "@tinyagents/restate";
import { startRestateServer, startWorkerPool } from "@tinyagents/restate/testing";

const quick = process.argv.includes("--quick");
const WORKERS = quick ? [1, 2] : [1, 2, 4];
const RUNS_PER_ROUND = quick ? 16 : 60;
const CONCURRENCY = 24;
const SEQUENTIAL = quick ? 3 : 12;
const KILLS = quick ? 2 : 10;
const STEPS_PER_RUN = 7; // 4 model calls + 3 tool calls
const AGENT = "conformance";
const workerScript = fileURLToPath(
  new URL("../../packages/restate/src/testing/fixtures/conformance-worker.mjs", import.meta.url),
);
const resultsFile = fileURLToPath(new URL("../results/scale-out-restate.json", import.meta.url));

const started = performance.now();
const dir = mkdtempSync(join(tmpdir(), "tinyagents-bench-restate-"));
const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const median = (values) => pct(values, 50);
/** CPU ms (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ = 100
  } catch {
    return undefined;
  }
}
const round = (v, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

const server = await startRestateServer({ streamsPerConnection: 1 });
const client = new RestateAgentClient({ ingressUrl: server.ingressUrl });
let runSeq = 0;

/** A pool of `workers` conformance workers registered with the server; `ledger` names its ledger file. */
async function pool(workers, ledger, extra = {}, onLine = undefined) {
  const ledgerPath = join(dir, `${ledger}.jsonl`);
  const p = await startWorkerPool({
    script: workerScript,
    workers,
    env: { TINYAGENTS_CONFORMANCE: JSON.stringify({ ledgerPath, autoApprove: true, ...extra }) },
    ...(onLine === undefined ? {} : { onLine }),
  });
  // Every pool has its own URL: the newest registered deployment serves new invocations.
  await server.registerDeployment(p.url, { force: true });
  return { pool: p, ledgerPath };
}

/** Run `count` runs, at most CONCURRENCY in flight; returns per-run latencies and wall time. */
async function burst(count, prefix, onDone = () => undefined) {
  const ids = Array.from({ length: count }, () => `${prefix}-${++runSeq}`);
  const latencies = [];
  let next = 0;
  let failed = 0;
  let onceUnknown = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < ids.length) {
      const runId = ids[next++];
      const s = performance.now();
      const outcome = await client.run(AGENT, runId, CONFORMANCE_INPUT);
      if (outcome.state !== "completed") failed++;
      const email = outcome.result.messages.find((m) => m.role === "tool" && m.toolCallId === "call_email");
      if (email?.isError === true) onceUnknown++; // cut by a kill after its intent: outcome unknown
      latencies.push(performance.now() - s);
      onDone(latencies.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, lane));
  return { ids, latencies, wallMs: performance.now() - t0, failed, onceUnknown };
}

// ---- 1. engine overhead per step: sequential, in process vs one Restate worker ---------------------
const inProcess = [];
{
  const { agent } = createConformanceAgent({ autoApprove: true });
  for (let i = 0; i < SEQUENTIAL + 1; i++) {
    const s = performance.now();
    const run = await agent.run(CONFORMANCE_INPUT, { runId: `inproc-${i}` });
    if (run.stopReason !== "completed") throw new Error(`in-process run ended ${run.stopReason}`);
    if (i > 0) inProcess.push(performance.now() - s); // first run warms the JIT
  }
}
const sequential = [];
{
  const { pool: p } = await pool(1, "sequential");
  await burst(1, "warm");
  for (let i = 0; i < SEQUENTIAL; i++) sequential.push((await burst(1, "seq")).latencies[0]);
  await p.stop();
}
const overheadPerStep = (median(sequential) - median(inProcess)) / STEPS_PER_RUN;
// The same runs as Restate timed them (invocation created -> completed): the engine's share,
// without the client's HTTP start + attach round trips.
const invocationMs = (
  await server.query(
    "SELECT created_at, completed_at FROM sys_invocation " +
      "WHERE target_service_key LIKE 'seq-%' AND target_handler_name = 'run' AND completed_at IS NOT NULL",
  )
).map((r) => Date.parse(r.completed_at) - Date.parse(r.created_at));
const engineOverheadPerStep = (median(invocationMs) - median(inProcess)) / STEPS_PER_RUN;

// ---- 2. throughput with 1, 2, 4 workers ---------------------------------------------------------
const throughput = [];
const allRunIds = [];
for (const workers of WORKERS) {
  const { pool: p } = await pool(workers, `throughput-${workers}`);
  await burst(Math.min(4, workers * 2), `warm${workers}`);
  const loadBefore = loadavg()[0];
  const pids = p.workers().map((w) => w.pid);
  const cpu0 = { server: cpuMs(server.pid), workers: pids.map(cpuMs), client: process.cpuUsage() };
  const r = await burst(RUNS_PER_ROUND, `w${workers}`);
  const clientCpu = process.cpuUsage(cpu0.client);
  const perRun = (ms) => (ms === undefined ? undefined : round(ms / RUNS_PER_ROUND, 1));
  allRunIds.push(...r.ids);
  throughput.push({
    workers,
    runs: RUNS_PER_ROUND,
    failed: r.failed,
    runsPerSecond: round(RUNS_PER_ROUND / (r.wallMs / 1000), 2),
    p50RunMs: round(median(r.latencies)),
    p99RunMs: round(pct(r.latencies, 99)),
    load1: round(loadBefore, 2),
    // CPU ms per run, by process: where the 2 cores go
    cpuMsPerRun: {
      restateServer: perRun(cpuMs(server.pid) - cpu0.server),
      workers: perRun(pids.reduce((sum, pid, i) => sum + (cpuMs(pid) - cpu0.workers[i]), 0)),
      benchClient: perRun((clientCpu.user + clientCpu.system) / 1000),
    },
  });
  await p.stop();
}
const scaling12 = throughput[1].runsPerSecond / throughput[0].runsPerSecond;

// ---- 3. duplicates: SIGKILL one worker in the middle of a round ------------------------------------
const killedWorkers = WORKERS.at(-1);
const underLoad = await (async () => {
  // Once half of the round's tool executions have started, the worker that just started one
  // (so it is inside a tool step, with other runs in flight) is SIGKILLed.
  let toolsStarted = 0;
  let killAt;
  let victim;
  let p;
  const onLine = (line, worker) => {
    if (!line.startsWith("recorded ") || !line.includes('"kind":"tool"')) return;
    if (++toolsStarted === Math.floor((RUNS_PER_ROUND * 3) / 2)) {
      killAt = toolsStarted;
      victim = worker;
      void p.kill(worker, "SIGKILL");
    }
  };
  const started = await pool(killedWorkers, "kill-under-load", { announce: true }, onLine);
  p = started.pool;
  const { ledgerPath } = started;
  const pids = p.workers().map((w) => w.pid);
  const r = await burst(RUNS_PER_ROUND, "kill");
  await p.stop();
  const entries = readLedger(ledgerPath);
  const summary = checkLedger(entries, { crashes: 1 });
  const tools = entries.filter((e) => e.kind === "tool");
  const dupOf = (pred) => [...summary.tools].filter(([k, n]) => n > 1 && pred(k)).length;
  const once = (k) => k.endsWith(":call_email");
  return {
    workers: killedWorkers,
    runs: RUNS_PER_ROUND,
    killedAfterToolExecutions: killAt,
    killedWorker: victim,
    executionsPerWorker: pids.map((pid) => entries.filter((e) => e.pid === pid).length),
    failed: r.failed,
    onceOutcomeUnknown: r.onceUnknown,
    toolExecutions: tools.length,
    atLeastOnceRanTwice: dupOf((k) => !once(k)),
    onceRanTwice: dupOf(once),
    modelCallsRanTwice: [...summary.models.values()].filter((n) => n > 1).length,
  };
})();

// ---- 4. recovery latency after SIGKILL inside a model step ----------------------------------------
const recoveries = [];
const recoveryLedger = await (async () => {
  const holdPath = join(dir, "hold.json");
  const waiters = [];
  const onLine = (line, worker) => {
    const space = line.indexOf(" ");
    const event = line.slice(0, space);
    if (event !== "holding" && event !== "recorded") return;
    const entry = JSON.parse(line.slice(space + 1));
    for (const w of [...waiters]) w(event, entry, worker, performance.now());
  };
  const { pool: p, ledgerPath } = await pool(2, "recovery", { holdPath, announce: true }, onLine);
  const wait = (pred) =>
    new Promise((resolve) => {
      const w = (...args) => {
        if (!pred(...args)) return;
        waiters.splice(waiters.indexOf(w), 1);
        resolve(args);
      };
      waiters.push(w);
    });
  for (let i = 0; i < KILLS; i++) {
    const runId = `recover-${i}`;
    await writeFile(holdPath, JSON.stringify({ runId, kind: "model", nth: 2 }));
    const holding = wait((event, entry) => event === "holding" && entry.runId === runId);
    await client.start(AGENT, runId, CONFORMANCE_INPUT);
    const [, entry, victim] = await holding;
    const rerun = wait(
      (event, e, worker) => event === "recorded" && e.callId === entry.callId && worker !== victim,
    );
    const killedAt = performance.now();
    await p.kill(victim, "SIGKILL");
    const [, , , at] = await rerun;
    recoveries.push(at - killedAt);
    const outcome = await client.result(AGENT, runId);
    if (outcome.state !== "completed") throw new Error(`recovered run ${runId} ended ${outcome.state}`);
    allRunIds.push(runId);
    await p.restart(victim);
  }
  await p.stop();
  return checkLedger(readLedger(ledgerPath), { crashes: 1 });
})();

// ---- 5. journal bytes per step ------------------------------------------------------------------------
const journalRows = await server.query(
  "SELECT id, count(*) AS entries, sum(raw_length) AS bytes, " +
    "sum(CASE WHEN name LIKE 'model:%' OR name LIKE 'tool:%' OR name LIKE 'intent:%' OR name LIKE 'result:%' THEN 1 ELSE 0 END) AS steps " +
    "FROM sys_journal GROUP BY id",
);
const perRun = journalRows.filter((r) => Number(r.steps) >= STEPS_PER_RUN);
const journalBytesPerRun = median(perRun.map((r) => Number(r.bytes)));
const journalEntriesPerRun = median(perRun.map((r) => Number(r.entries)));

await server.stop();
rmSync(dir, { recursive: true, force: true });

// ---- report ----------------------------------------------------------------------------------------
const results = {
  date: new Date().toISOString(),
  quick,
  node: process.version,
  nproc: cpus().length,
  restateServerStartupMs: server.startupMs,
  overhead: {
    inProcessRunMs: round(median(inProcess)),
    restateRunMs: round(median(sequential)),
    perStepMs: round(overheadPerStep, 2),
    invocationRunMs: round(median(invocationMs)),
    enginePerStepMs: round(engineOverheadPerStep, 2),
    runs: SEQUENTIAL,
  },
  throughput,
  scaling1to2: round(scaling12, 2),
  recovery: {
    kills: KILLS,
    p50Ms: round(median(recoveries)),
    p99Ms: round(pct(recoveries, 99)),
    maxMs: round(Math.max(...recoveries)),
    modelStepsRerun: [...recoveryLedger.models.values()].filter((n) => n > 1).length,
  },
  duplicates: underLoad,
  journal: {
    source: "sys_journal.raw_length (Restate introspection SQL)",
    runs: perRun.length,
    bytesPerRun: journalBytesPerRun,
    entriesPerRun: journalEntriesPerRun,
    bytesPerStep: round(journalBytesPerRun / STEPS_PER_RUN),
  },
  totalSeconds: round((performance.now() - started) / 1000),
};
mkdirSync(fileURLToPath(new URL("../results/", import.meta.url)), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

const lines = [
  `## Restate scale-out (${quick ? "quick" : "full"}; Node ${process.version}, ${cpus().length} cores, restate-server started in ${server.startupMs} ms)`,
  "",
  "| workers | runs | runs/s | p50 run ms | p99 run ms | CPU ms/run: server / workers / client | load1 before |",
  "| --- | --- | --- | --- | --- | --- | --- |",
  ...throughput.map(
    (t) =>
      `| ${t.workers} | ${t.runs} | ${t.runsPerSecond} | ${t.p50RunMs} | ${t.p99RunMs} | ` +
      `${t.cpuMsPerRun.restateServer} / ${t.cpuMsPerRun.workers} / ${t.cpuMsPerRun.benchClient} | ${t.load1} |`,
  ),
  "",
  "| measure | value | goal |",
  "| --- | --- | --- |",
  `| scaling 1 -> 2 workers | ${results.scaling1to2}x | >= 1.6x where cores allow |`,
  `| engine overhead per step, client's view (sequential run ${results.overhead.restateRunMs} ms through the ingress vs ${results.overhead.inProcessRunMs} ms in process, / ${STEPS_PER_RUN} steps) | ${results.overhead.perStepMs} ms | <= 5 ms |`,
  `| engine overhead per step, Restate's view (invocation created -> completed ${results.overhead.invocationRunMs} ms vs ${results.overhead.inProcessRunMs} ms in process, / ${STEPS_PER_RUN} steps) | ${results.overhead.enginePerStepMs} ms | <= 5 ms |`,
  `| recovery after SIGKILL in a model step (${KILLS} kills) | p50 ${results.recovery.p50Ms} ms, p99 ${results.recovery.p99Ms} ms | <= 2 s |`,
  `| SIGKILL of 1 of ${underLoad.workers} workers mid-round (${underLoad.runs} runs, ${underLoad.toolExecutions} tool executions) | at-least-once ran twice: ${underLoad.atLeastOnceRanTwice}; "once" ran twice: ${underLoad.onceRanTwice}; model calls ran twice: ${underLoad.modelCallsRanTwice}; "once" cut (outcome unknown, not rerun): ${underLoad.onceOutcomeUnknown}; failed runs: ${underLoad.failed} | 0 "once" duplicates |`,
  `| journal per run (${perRun.length} runs, sys_journal.raw_length) | ${journalBytesPerRun} B in ${journalEntriesPerRun} entries = ${results.journal.bytesPerStep} B per step | - |`,
  "",
  `total ${results.totalSeconds} s; JSON: bench/results/scale-out-restate.json`,
];
console.log(lines.join("\n"));
process.exit(0);
