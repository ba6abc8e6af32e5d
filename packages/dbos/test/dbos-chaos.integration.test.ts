/**
 * Integration tier, chaos (issue 36 item 4; budget ~60 s, bounded at 120 s): 50 concurrent
 * conformance runs on three DBOS worker processes over one Postgres, while a seeded schedule
 * SIGKILLs a worker at random instants 6 times (each restarted with its executor id, which
 * recovers its pending runs). Every run must complete with no `once` tool run twice, and every
 * run's journaled stream must read like one uninterrupted run (`streamProblems`), and the journal
 * lag (event emitted -> written to Postgres) p99 must be at most 250 ms. Measured with the
 * one-statement Postgres group commit on a machine the suite has to itself (load 1-4): p99 72, 77
 * and 98 ms in three runs. Like the Restate suite's, the margin follows the machine's load: on 2
 * cores shared with other builds (load 10-25) the p99 was 0.6-2.6 s, the workers starved of CPU
 * (see docs/scale-out.md, "Where the DBOS lag goes"); the printed line says where the time went:
 * how long events waited before their write started, the writes themselves and the workers'
 * event-loop delay.
 */
import { CONFORMANCE_INPUT, checkLedger, readLedger, streamProblems } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";
import { seededRandom, testSeed } from "../../../test/support/seeded-random.js";
import { useDbosCluster } from "./support/cluster.js";
import { dbosSkipReason } from "./support/postgres.js";
import { startWorker, type Worker, type WorkerConfig } from "./support/workers.js";

const skip = dbosSkipReason("dbos-chaos.integration.test");
const RUNS = 50;
const KILLS = 6;
const WORKERS = 3;
const SEED = 36;

/** A chaos worker: approves by itself, slow model and tool calls, reports its journal lag. */
const CHAOS_WORKER: Partial<WorkerConfig> = {
  autoApprove: true,
  modelDelayMs: 20,
  toolDelayMs: 10,
  lag: true,
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

describe.skipIf(skip !== undefined)("DBOS chaos: 50 concurrent runs, 6 seeded worker SIGKILLs", () => {
  const cluster = useDbosCluster("chaos");
  const config = (executorId: string) => cluster.config(executorId, CHAOS_WORKER);

  it("every run completes, once tools never repeat, every stream reads like one run", async () => {
    const next = seededRandom(testSeed(SEED));
    const slots: Worker[] = [];
    for (let i = 0; i < WORKERS; i++) slots.push(await startWorker(config(`chaos-${i}`), cluster.workers));
    const ids = Array.from({ length: RUNS }, (_, i) => `chaos-${i}`);
    await Promise.all(ids.map((runId) => cluster.client.start("ops", CONFORMANCE_INPUT, { runId })));
    const results = Promise.all(ids.map((runId) => cluster.client.result(runId)));
    // The kill schedule: a random worker at a random instant 100-700 ms after the last restart.
    for (let k = 0; k < KILLS; k++) {
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(next() * 600)));
      const slot = Math.floor(next() * WORKERS);
      await slots[slot]?.kill();
      slots[slot] = await startWorker(config(`chaos-${slot}`), cluster.workers);
    }
    const done = await results;
    expect(done.map((r) => r.stopReason)).toEqual(ids.map(() => "completed"));
    const ledger = readLedger(cluster.ledgerPath);
    const summary = checkLedger(ledger, { crashes: KILLS }); // throws when a once tool ran twice
    const problems: string[] = [];
    for (const runId of ids) {
      const stream = await cluster.client.events(runId);
      for (const problem of streamProblems(stream)) problems.push(`${runId}: ${problem}`);
    }
    expect(problems).toEqual([]);
    const printed = (prefix: string) =>
      cluster.workers.flatMap((w) =>
        w
          .output()
          .filter((line) => line.startsWith(prefix))
          .flatMap((line) => JSON.parse(line.slice(prefix.length)) as number | number[]),
      );
    const lags = printed("lag ");
    const writes = printed("write ");
    const queued = printed("queued ");
    const loop = printed("loop ");
    expect(lags.length).toBeGreaterThan(0);
    console.log(
      `dbos chaos: ${RUNS} runs, ${KILLS} kills, ${summary.duplicates} at-least-once re-runs, journal lag p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms (target <= 250 ms) over ${lags.length} events; waited before their write p50 ${percentile(queued, 50)} ms, p99 ${percentile(queued, 99)} ms; the journal writes themselves (one transaction each) p50 ${percentile(writes, 50)} ms, p99 ${percentile(writes, 99)} ms over ${writes.length}; worker event-loop delay p99 per write interval: median ${percentile(loop, 50)} ms, max ${percentile(loop, 100)} ms`,
    );
    expect(percentile(lags, 99)).toBeLessThanOrEqual(250);
  }, 120_000);
});
