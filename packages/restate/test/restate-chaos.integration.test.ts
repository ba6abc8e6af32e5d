/**
 * Integration tier, chaos (issue 36 item 4; budget ~60 s, bounded at 120 s): 50 concurrent
 * conformance runs on three Restate worker processes (built packages) behind one deployment,
 * while a seeded schedule SIGKILLs a worker at random instants 5 times (each restarted) and
 * SIGKILLs restate-server once (restarted on the same data and ports). Every run must complete
 * with no `once` tool run twice, and every run's journaled stream (one SQLite journal shared by
 * the workers) must read like one uninterrupted run (`streamProblems`), and the journal lag (event
 * emitted -> written) p99 must be at most 250 ms (measured 120-204 ms at load 16-25 on 2 cores).
 * Needs `npm run build`.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppendLogEventJournal } from "@tinyagents/harness";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { CONFORMANCE_INPUT, checkLedger, readLedger, streamProblems } from "@tinyagents/harness/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededRandom, testSeed } from "../../../test/support/seeded-random.js";
import { RestateAgentClient } from "../src/index.js";
import {
  freePort,
  type RestateServer,
  startRestateServer,
  startWorkerPool,
  type WorkerPool,
} from "../src/testing/index.js";
import { RESTATE_SKIP } from "./support/restate-env.js";

const WORKER = fileURLToPath(new URL("../src/testing/fixtures/conformance-worker.mjs", import.meta.url));
const AGENT = "conformance";
const RUNS = 50;
const KILLS = 5;
const SEED = 36;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

describe.skipIf(RESTATE_SKIP !== undefined)(
  "Restate chaos: 50 concurrent runs, 5 worker SIGKILLs, 1 server SIGKILL",
  () => {
    let server: RestateServer | undefined;
    let pool: WorkerPool | undefined;
    let dir = "";
    let serverOptions: Parameters<typeof startRestateServer>[0];
    const lags: number[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "tinyagents-restate-chaos-"));
      const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
      await mkdir(join(dir, "restate"));
      // Fixed ports and data: a server SIGKILLed mid-test restarts as the same node.
      serverOptions = {
        baseDir: join(dir, "restate"),
        retryInitialIntervalMs: 50,
        streamsPerConnection: 1,
        ports: { ingress, admin, node: fabric },
      };
      server = await startRestateServer(serverOptions);
      const config = {
        ledgerPath: join(dir, "ledger.jsonl"),
        journalPath: join(dir, "events.sqlite"),
        autoApprove: true,
        modelDelayMs: 20,
        toolDelayMs: 10,
        lag: true,
      };
      pool = await startWorkerPool({
        script: WORKER,
        workers: 3,
        env: { TINYAGENTS_CONFORMANCE: JSON.stringify(config) },
        onLine: (line) => {
          if (line.startsWith("lag ")) lags.push(...(JSON.parse(line.slice(4)) as number[]));
        },
      });
      await server.registerDeployment(pool.url);
    }, 120_000);

    afterAll(async () => {
      await pool?.stop();
      await server?.stop();
      if (dir !== "") await rm(dir, { recursive: true, force: true });
    });

    it("every run completes, once tools never repeat, every stream reads like one run", async () => {
      const next = seededRandom(testSeed(SEED));
      const live = () => server as RestateServer;
      const client = () => new RestateAgentClient({ ingressUrl: live().ingressUrl });
      const ids = Array.from({ length: RUNS }, (_, i) => `chaos-${i}`);
      await Promise.all(ids.map((runId) => client().start(AGENT, runId, CONFORMANCE_INPUT)));
      const serverKillAt = Math.floor(next() * KILLS);
      for (let k = 0; k < KILLS; k++) {
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(next() * 600)));
        const slot = Math.floor(next() * 3);
        await pool?.kill(slot, "SIGKILL");
        await pool?.restart(slot);
        if (k === serverKillAt) {
          process.kill(live().pid, "SIGKILL");
          await live().stop(); // waits for the exit; keeps the given data dir
          server = await startRestateServer(serverOptions);
        }
      }
      const outcomes = [];
      for (const runId of ids) outcomes.push(await client().result(AGENT, runId));
      expect(outcomes.map((o) => o.state)).toEqual(ids.map(() => "completed"));
      const summary = checkLedger(readLedger(join(dir, "ledger.jsonl")), { crashes: KILLS + 1 });
      const store = SqliteStore.open(join(dir, "events.sqlite"));
      const journal = new AppendLogEventJournal(store.appendLog);
      const problems: string[] = [];
      try {
        for (const runId of ids) {
          for (const problem of streamProblems(await journal.read(runId)))
            problems.push(`${runId}: ${problem}`);
        }
      } finally {
        store.close();
      }
      expect(problems).toEqual([]);
      expect(lags.length).toBeGreaterThan(0);
      console.log(
        `restate chaos: ${RUNS} runs, ${KILLS} worker kills + 1 server kill, ${summary.duplicates} at-least-once re-runs, journal lag p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms (target <= 250 ms) over ${lags.length} events`,
      );
      expect(percentile(lags, 99)).toBeLessThanOrEqual(250);
    }, 120_000);
  },
);
