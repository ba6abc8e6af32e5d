// Per-step overhead of @tinyagents/dbos against the engine's own floor (issue 36): the
// conformance scenario (4 model calls, 3 tool calls, zero-delay fakes, the deploy approved by
// rule) run as a tinyagents DBOS workflow, beside a hand-written DBOS workflow doing the same 7
// steps (`DBOS.runStep` around the same fake model reply and trivial tool work), both registered
// in this process over a throwaway Postgres, both enqueued on the same queue by a client and
// awaited by polling every 10 ms. Sequential runs, alternating the two, median ms per run; per
// step = (tinyagents - hand-written) / 7. Against the BUILT packages (`npm run build` first).
//   node bench/scale-out/engine-floor-dbos.mjs [runs=15]
import dbosSdk from "@dbos-inc/dbos-sdk";
import { createDbosClient, dbosAgents } from "@tinyagents/dbos";
import { CONFORMANCE_INPUT, createConformanceAgent } from "@tinyagents/harness/testkit";
import { startTestPostgres } from "@tinyagents/postgres/testing";
import { handWrittenRun, measureAlternating, printFloorTable } from "./engine-floor-lib.mjs";

const { DBOS, DBOSClient } = dbosSdk;
const RUNS = Number(process.argv[2] ?? 15);
const POLL_MS = 10;

const pg = await startTestPostgres();
const url = pg.url.replace(/\/postgres$/, "/floor");
const agent = createConformanceAgent({ autoApprove: true, modelDelayMs: 0, toolDelayMs: 0 }).agent;
const workers = dbosAgents({
  agents: { ops: agent },
  systemDatabaseUrl: url,
  executorId: "floor",
  logLevel: "error",
});
// The hand-written workflow: the scenario's 7 steps as plain DBOS steps.
DBOS.registerWorkflow(() => handWrittenRun((name, fn) => DBOS.runStep(fn, { name })), { name: "bench.hand" });
await workers.launch();
const client = await createDbosClient({ systemDatabaseUrl: url, resultPollingMs: POLL_MS });
const raw = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "tinyagents" });
try {
  const medians = await measureAlternating(
    RUNS,
    async (id) => {
      await client.start("ops", CONFORMANCE_INPUT, { runId: id });
      await client.result(id);
    },
    async (id) => {
      const handle = await raw.enqueue({
        workflowName: "bench.hand",
        queueName: workers.queueName,
        workflowID: id,
        appVersion: "tinyagents",
        queuePartitionKey: id,
      });
      await handle.getResult({ pollingIntervalMs: POLL_MS });
    },
  );
  printFloorTable("DBOS", "@tinyagents/dbos", RUNS, medians);
} finally {
  await raw.destroy();
  await client.close();
  await workers.shutdown();
  await pg.stop();
}
