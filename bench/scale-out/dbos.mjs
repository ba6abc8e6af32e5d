// Scale-out on DBOS (issue 18 item 7): the conformance scenario agent (3 tool turns, 4 model
// calls, 50 ms fake model, 20 ms tool, the deploy approved by rule) run by DBOS worker processes
// over a throwaway local Postgres. Measures:
//   - runs/s with 1, 2 and 4 workers (every run on its own partition of the thread queue);
//   - engine overhead per step: sequential runs on one DBOS worker against the same agent in
//     process, in this same invocation (queue wait reported apart);
//   - recovery latency after SIGKILL inside a model step: to the first model call on the
//     restarted worker (same executor id), and to the first on a live worker after takeOver;
//   - the duplicate-execution ledger of those runs (checkLedger);
//   - journal bytes per step: DBOS's operation_outputs rows (and the workflow_status row per run).
// Standalone, against the BUILT packages: `npm run build` first. Writes Markdown to stdout and
// JSON to bench/results/scale-out-dbos.json (--quick: scale-out-dbos-quick.json).
//   node bench/scale-out/dbos.mjs            full (< 2 min)
//   node bench/scale-out/dbos.mjs --quick    smoke (< 30 s)
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDbosClient } from "@tinyagents/dbos";
import {
  CONFORMANCE_INPUT,
  checkLedger,
  createConformanceAgent,
  readLedger,
} from "@tinyagents/harness/testkit";
import { startTestPostgres } from "@tinyagents/postgres/testing";
import pg from "pg";

const quick = process.argv.includes("--quick");
// Quick (CI smoke): 1 and 2 workers only, a few runs each — it checks the bench works, not the figures.
const WORKERS = quick ? [1, 2] : [1, 2, 4];
const RUNS_PER_WORKER = quick ? 4 : 20;
const WORKER_CONCURRENCY = 8;
const SEQUENTIAL = quick ? 3 : 20;
const RECOVERIES = quick ? 1 : 6;
const workerScript = fileURLToPath(
  new URL("../../packages/dbos/test/fixtures/dbos-worker.mjs", import.meta.url),
);
// The quick smoke run writes its own file, so it never replaces the full run's figures.
const resultsFile = fileURLToPath(
  new URL(
    `../results/scale-out-dbos${process.argv.includes("--quick") ? "-quick" : ""}.json`,
    import.meta.url,
  ),
);

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), "tinyagents-bench-dbos-"));
const ledgerPath = join(dir, "ledger.jsonl");
const children = new Set();

// ---- Postgres: the project's launcher; queries through pg ---------------------------------------
async function startPostgres() {
  const server = await startTestPostgres({ settings: { max_connections: "300" } });
  const url = (db) => server.url.replace(/\/postgres$/, `/${db}`);
  let client;
  return {
    url,
    /** One query's rows, each row's values joined by `|`, rows by newlines (like `psql -At`). */
    async sql(db, query) {
      if (client === undefined) {
        client = new pg.Client({ connectionString: url(db) });
        await client.connect();
      }
      const { rows } = await client.query({ text: query, rowMode: "array" });
      return rows.map((r) => r.join("|")).join("\n");
    },
    async stop() {
      await client?.end();
      await server.stop();
    },
  };
}

// ---- workers ---------------------------------------------------------------------------------
function spawnWorker(config) {
  const child = spawn(
    process.execPath,
    ["--no-deprecation", workerScript, JSON.stringify({ ledgerPath, ...config })],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  children.add(child);
  const listeners = [];
  let buffer = "";
  child.stdout.on("data", (d) => {
    buffer += d.toString();
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      for (const l of [...listeners]) l(line);
    }
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const waitFor = (prefix) =>
    new Promise((resolve, reject) => {
      const l = (line) => {
        if (!line.startsWith(prefix)) return;
        listeners.splice(listeners.indexOf(l), 1);
        resolve(line);
      };
      listeners.push(l);
      exited.then(() => reject(new Error(`worker ${config.executorId} exited before "${prefix}"`)));
    });
  return {
    waitFor,
    ready: waitFor("ready"),
    command: (line) => child.stdin.write(`${line}\n`),
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
      children.delete(child);
    },
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      children.delete(child);
    },
  };
}

/**
 * A worker dequeues from the runs queue only once it has read the queue's row, up to a second
 * after launch: a few runs first, untimed, so the figures are the steady state.
 */
async function warmUp(client, prefix, n) {
  const ids = Array.from({ length: 2 * n }, (_, i) => `${prefix}-${i}`);
  await Promise.all(ids.map((runId) => client.start("ops", CONFORMANCE_INPUT, { runId })));
  await Promise.all(ids.map((runId) => client.result(runId)));
}

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

const progress = (what) =>
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${what}\n`);
const server = await startPostgres();
progress("postgres up");
const DB = "bench";
const url = server.url(DB);
const sql = (query) => server.sql(DB, query);
const results = {
  machine: {
    cpus: cpus().length,
    node: process.version,
    quick,
    loadAverageAtStart: loadavg().map((l) => round(l, 2)),
  },
  throughput: [],
};
try {
  // One database throughout; workers are added 1 -> 2 -> 4 and each phase's runs have their own
  // id prefix. The first worker creates and migrates the database.
  const workers = [];
  const addWorker = (i) =>
    spawnWorker({ url, executorId: `w${i}`, autoApprove: true, workerConcurrency: WORKER_CONCURRENCY });
  workers.push(addWorker(0));
  await workers[0].ready;
  const client = await createDbosClient({ systemDatabaseUrl: url });
  await warmUp(client, "warm", 1);

  // ---- 1. overhead per step: sequential runs, DBOS vs in process ---------------------------
  const { agent } = createConformanceAgent({ autoApprove: true });
  const inproc = [];
  const engine = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    let t = performance.now();
    await agent.run(CONFORMANCE_INPUT, { runId: `ip-${i}` });
    inproc.push(performance.now() - t);
    t = performance.now();
    await client.start("ops", CONFORMANCE_INPUT, { runId: `seq-${i}` });
    await client.result(`seq-${i}`);
    engine.push(performance.now() - t);
  }
  const seq = "workflow_uuid LIKE 'seq-%'";
  const queueWait = Number(
    await sql(`SELECT avg(started_at_epoch_ms - created_at) FROM dbos.workflow_status WHERE ${seq}`),
  );
  const workflowSpan = Number(
    await sql(`SELECT avg(updated_at - started_at_epoch_ms) FROM dbos.workflow_status WHERE ${seq}`),
  );
  const stepsPerRun = Number(
    await sql(
      `SELECT count(*)::float / count(DISTINCT workflow_uuid) FROM dbos.operation_outputs WHERE ${seq}`,
    ),
  );
  const rowBytes = Number(
    await sql(`SELECT avg(pg_column_size(o.*)) FROM dbos.operation_outputs o WHERE ${seq}`),
  );
  const payloadBytes = Number(
    await sql(
      `SELECT avg(coalesce(octet_length(output), 0) + coalesce(octet_length(error), 0)) FROM dbos.operation_outputs WHERE ${seq}`,
    ),
  );
  const perRunBytes =
    Number(
      await sql(
        `SELECT (SELECT sum(pg_column_size(s.*)) FROM dbos.workflow_status s WHERE ${seq}) + ` +
          `coalesce((SELECT sum(pg_column_size(i.*)) FROM dbos.workflow_input i WHERE ${seq}), 0) + ` +
          `coalesce((SELECT sum(pg_column_size(x.*)) FROM dbos.workflow_output x WHERE ${seq}), 0)`,
      ),
    ) / SEQUENTIAL;
  const byKind = await sql(
    "SELECT k || '=' || round(avg(sz)) FROM (SELECT split_part(function_name, ':', 1) AS k, pg_column_size(o.*) AS sz " +
      `FROM dbos.operation_outputs o WHERE ${seq}) t GROUP BY k ORDER BY k`,
  );
  const inprocMs = mean(inproc);
  results.overhead = {
    runs: SEQUENTIAL,
    inProcessRunMs: round(inprocMs),
    dbosRunMs: round(mean(engine)),
    queueWaitMs: round(queueWait),
    workflowMs: round(workflowSpan),
    journaledStepsPerRun: round(stepsPerRun),
    overheadPerStepMs: round((workflowSpan - inprocMs) / stepsPerRun, 2),
    overheadPerStepIncludingQueueMs: round((mean(engine) - inprocMs) / stepsPerRun, 2),
  };
  results.journal = {
    operationOutputRowBytes: round(rowBytes),
    operationOutputPayloadBytes: round(payloadBytes),
    workflowRowsBytesPerRun: round(perRunBytes),
    rowBytesByStepKind: byKind.split("\n"),
  };
  progress(`overhead: ${results.overhead.overheadPerStepMs} ms per step`);

  // ---- 2. throughput with 1, 2, 4 workers -------------------------------------------------
  for (const n of WORKERS) {
    if (workers.length < n) {
      const added = [];
      for (let i = workers.length; i < n; i++) added.push(addWorker(i));
      await Promise.all(added.map((w) => w.ready));
      workers.push(...added);
      // A new worker polls the runs queue only once it has read the queue's row (DBOS reconciles
      // queues every second): give it that second, then start timing.
      await new Promise((resolve) => setTimeout(resolve, 1200));
    }
    const total = RUNS_PER_WORKER * n;
    const ids = Array.from({ length: total }, (_, i) => `tp${n}-${i}`);
    const t0 = performance.now();
    await Promise.all(ids.map((runId) => client.start("ops", CONFORMANCE_INPUT, { runId })));
    const outcomes = await Promise.all(ids.map((runId) => client.result(runId)));
    const seconds = (performance.now() - t0) / 1000;
    const perWorker = await sql(
      `SELECT executor_id || '=' || count(*) FROM dbos.workflow_status WHERE workflow_uuid LIKE 'tp${n}-%' GROUP BY executor_id ORDER BY 1`,
    );
    results.throughput.push({
      workers: n,
      runs: total,
      completed: outcomes.filter((r) => r.stopReason === "completed").length,
      seconds: round(seconds, 2),
      runsPerSecond: round(total / seconds, 2),
      perWorker: perWorker.split("\n"),
    });
    progress(`throughput with ${n} worker(s): ${results.throughput.at(-1).runsPerSecond} runs/s`);
  }
  const t1 = results.throughput[0].runsPerSecond;
  results.scaling = Object.fromEntries(
    results.throughput.map((t) => [`${t.workers}w`, round(t.runsPerSecond / t1, 2)]),
  );
  for (const w of workers) await w.stop();

  // ---- 3. recovery latency after SIGKILL ----------------------------------------------------
  const restart = [];
  const takeover = [];
  for (let i = 0; i < RECOVERIES; i++) {
    for (const mode of ["restart", "takeover"]) {
      const runId = `rec-${mode}-${i}`;
      const doomedId = `doomed-${mode}-${i}`;
      const doomed = spawnWorker({
        url,
        executorId: doomedId,
        autoApprove: true,
        killAt: "model:2",
      });
      await doomed.ready;
      let taker;
      await client.start("ops", CONFORMANCE_INPUT, { runId });
      await doomed.waitFor("killpoint");
      if (mode === "takeover") {
        taker = spawnWorker({ url, executorId: `taker-${i}`, autoApprove: true, trace: true });
        await taker.ready;
      }
      const killedAt = performance.now();
      await doomed.kill();
      if (mode === "restart") {
        taker = spawnWorker({ url, executorId: doomedId, autoApprove: true, trace: true });
      } else {
        taker.command(`takeover ${doomedId}`);
      }
      await taker.waitFor(`model ${runId}`);
      (mode === "restart" ? restart : takeover).push(performance.now() - killedAt);
      const r = await client.result(runId);
      if (r.stopReason !== "completed") throw new Error(`recovered run ${runId} ended ${r.stopReason}`);
      await taker.stop();
      progress(`recovery ${mode} ${i}`);
    }
  }
  await client.close();
  const entries = readLedger(ledgerPath).filter((e) => e.runId.startsWith("rec-"));
  const summary = checkLedger(entries, { crashes: 1 });
  const onceKeys = entries.filter((e) => e.sideEffects === "once").map((e) => `${e.runId}:${e.callId}`);
  results.recovery = {
    trials: RECOVERIES,
    restartSameExecutorMs: { p50: round(pct(restart, 50)), p99: round(pct(restart, 99)) },
    takeoverLiveWorkerMs: { p50: round(pct(takeover, 50)), p99: round(pct(takeover, 99)) },
    ledger: {
      runs: RECOVERIES * 2,
      executions: entries.length,
      duplicates: summary.duplicates,
      onceExecutions: onceKeys.length,
      onceDuplicates: onceKeys.length - new Set(onceKeys).size,
      checkLedger: "passed",
    },
  };
} finally {
  for (const child of children) child.kill("SIGKILL");
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
results.durationSeconds = round((Date.now() - started) / 1000);
results.machine.loadAverageAtEnd = loadavg().map((l) => round(l, 2));

// ---- report ----------------------------------------------------------------------------------
const md = [
  `## DBOS scale-out (${quick ? "quick" : "full"}; ${results.machine.cpus} cores, Node ${results.machine.node}, ` +
    `load average ${results.machine.loadAverageAtStart[0]} at start, ${results.machine.loadAverageAtEnd[0]} at end)`,
  "",
  "| workers | runs | runs/s | scaling vs 1 | runs per executor |",
  "| --- | --- | --- | --- | --- |",
  ...results.throughput.map(
    (t) =>
      `| ${t.workers} | ${t.completed}/${t.runs} | ${t.runsPerSecond} | ${results.scaling[`${t.workers}w`]}x | ${t.perWorker.join(", ")} |`,
  ),
  "",
  `Sequential runs (${results.overhead.runs}): in process ${results.overhead.inProcessRunMs} ms/run, on DBOS ${results.overhead.dbosRunMs} ms/run ` +
    `(queue wait ${results.overhead.queueWaitMs} ms, workflow ${results.overhead.workflowMs} ms, ${results.overhead.journaledStepsPerRun} journaled steps/run): ` +
    `**${results.overhead.overheadPerStepMs} ms per step** (${results.overhead.overheadPerStepIncludingQueueMs} ms counting the queue wait).`,
  "",
  `Recovery after SIGKILL inside a model step (${results.recovery.trials} trials each): restart with the same executor id ` +
    `p50 ${results.recovery.restartSameExecutorMs.p50} ms / p99 ${results.recovery.restartSameExecutorMs.p99} ms (includes spawning Node and launching DBOS); ` +
    `takeover by a live worker p50 ${results.recovery.takeoverLiveWorkerMs.p50} ms / p99 ${results.recovery.takeoverLiveWorkerMs.p99} ms.`,
  "",
  `Ledger of the ${results.recovery.ledger.runs} killed runs: ${results.recovery.ledger.executions} executions, ${results.recovery.ledger.duplicates} duplicates ` +
    `(the cut model call, once per kill), "once" tool duplicates: ${results.recovery.ledger.onceDuplicates}; checkLedger ${results.recovery.ledger.checkLedger}.`,
  "",
  `Journal: ${results.journal.operationOutputRowBytes} bytes per operation_outputs row on average (payload ${results.journal.operationOutputPayloadBytes} B); ` +
    `workflow rows (status, input, output) ${results.journal.workflowRowsBytesPerRun} B per run; by step kind: ${results.journal.rowBytesByStepKind.join(", ")}.`,
  "",
  `Took ${results.durationSeconds} s.`,
].join("\n");
console.log(md);
mkdirSync(join(resultsFile, ".."), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
