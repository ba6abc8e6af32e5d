// Per-step overhead of @tinyagents/dbos against the engine's own floor (issue 36 item 5): the
// conformance scenario (4 model calls, 3 tool calls, zero-delay fakes, the deploy approved by
// rule) run as a tinyagents DBOS workflow, beside a hand-written DBOS workflow doing the same 7
// steps (`DBOS.runStep` around the same fake model reply and trivial tool work), both registered
// in this process over a throwaway Postgres, both enqueued on the same queue by a client and
// awaited by polling every 10 ms. Sequential runs, alternating the two, median ms per run; per
// step = (tinyagents - hand-written) / 7. Against the BUILT packages (`npm run build` first).
//   node bench/scale-out/engine-floor-dbos.mjs [runs=15]
import dbosSdk from "@dbos-inc/dbos-sdk";
import { createDbosClient, dbosAgents } from "@tinyagents/dbos";
import {
  CONFORMANCE_CALLS,
  CONFORMANCE_INPUT,
  conformanceReply,
  createConformanceAgent,
} from "@tinyagents/harness/testkit";
import { user } from "@tinyagents/inference";
import { startTestPostgres } from "@tinyagents/postgres/testing";

const { DBOS, DBOSClient } = dbosSdk;
const RUNS = Number(process.argv[2] ?? 15);
const STEPS = 7;
const POLL_MS = 10;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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
DBOS.registerWorkflow(
  async () => {
    const messages = [user(CONFORMANCE_INPUT)];
    for (let turn = 0; turn < 4; turn++) {
      const reply = await DBOS.runStep(async () => conformanceReply(messages).message, {
        name: `model-${turn}`,
      });
      messages.push(reply);
      const call = CONFORMANCE_CALLS[turn];
      if (call === undefined) break;
      const result = await DBOS.runStep(async () => `${call.name} done`, { name: `tool-${call.id}` });
      messages.push({
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: result }],
      });
    }
    return messages.length;
  },
  { name: "bench.hand" },
);
await workers.launch();
const client = await createDbosClient({ systemDatabaseUrl: url, resultPollingMs: POLL_MS });
const raw = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "tinyagents" });
try {
  const times = { tinyagents: [], hand: [] };
  for (let i = -2; i < RUNS; i++) {
    // Two warm-up rounds, then alternate so both see the same machine load.
    let started = performance.now();
    await client.start("ops", CONFORMANCE_INPUT, { runId: `ta-${i}` });
    await client.result(`ta-${i}`);
    const ta = performance.now() - started;
    started = performance.now();
    const handle = await raw.enqueue({
      workflowName: "bench.hand",
      queueName: workers.queueName,
      workflowID: `hand-${i}`,
      appVersion: "tinyagents",
      queuePartitionKey: `hand-${i}`,
    });
    await handle.getResult({ pollingIntervalMs: POLL_MS });
    const hw = performance.now() - started;
    if (i >= 0) {
      times.tinyagents.push(ta);
      times.hand.push(hw);
    }
  }
  const ta = median(times.tinyagents);
  const hw = median(times.hand);
  console.log("| DBOS, sequential, 7 steps/run | ms/run (median) | ms/step |");
  console.log("| --- | --- | --- |");
  console.log(`| hand-written workflow | ${hw.toFixed(1)} | ${(hw / STEPS).toFixed(1)} |`);
  console.log(`| @tinyagents/dbos | ${ta.toFixed(1)} | ${(ta / STEPS).toFixed(1)} |`);
  console.log(
    `\nOverhead over the engine's floor: ${((ta - hw) / STEPS).toFixed(1)} ms per step, ${(ta / hw).toFixed(2)}x (target <= 1.3x); ${RUNS} runs each.`,
  );
} finally {
  await raw.destroy();
  await client.close();
  await workers.shutdown();
  await pg.stop();
}
