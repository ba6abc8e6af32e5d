// Per-step overhead of @tinyagents/restate against the engine's own floor (issue 36 item 5): the
// conformance scenario (4 model calls, 3 tool calls, zero-delay fakes, the deploy approved by
// rule) run as a tinyagents Restate workflow, beside a hand-written Restate workflow doing the
// same 7 steps (`ctx.run` around the same fake model reply and trivial tool work), both served by
// one endpoint in this process against a restate-server from node_modules on loopback. Sequential
// runs, alternating the two, median ms per run; per step = (tinyagents - hand-written) / 7.
// Standalone, against the BUILT packages (`npm run build` first). Prints one Markdown table.
//   node bench/scale-out/engine-floor-restate.mjs [runs=15]
import { serde, workflow } from "@restatedev/restate-sdk";
import { connect } from "@restatedev/restate-sdk-clients";
import {
  CONFORMANCE_CALLS,
  CONFORMANCE_INPUT,
  conformanceReply,
  createConformanceAgent,
} from "@tinyagents/harness/testkit";
import { user } from "@tinyagents/inference";
import { listenAgents, RestateAgentClient, restateAgents } from "@tinyagents/restate";
import { startRestateServer } from "@tinyagents/restate/testing";

const RUNS = Number(process.argv[2] ?? 15);
const STEPS = 7;
const quiet = (meta, message, ...rest) => {
  if (meta.level === "error") console.error(message, ...rest);
};

/** The hand-written workflow: the scenario's 7 steps as plain `ctx.run` calls. */
const hand = workflow({
  name: "bench.hand",
  handlers: {
    run: async (ctx) => {
      const messages = [user(CONFORMANCE_INPUT)];
      for (let turn = 0; turn < 4; turn++) {
        const reply = await ctx.run(`model-${turn}`, async () => conformanceReply(messages).message, {
          serde: serde.json,
        });
        messages.push(reply);
        const call = CONFORMANCE_CALLS[turn];
        if (call === undefined) break;
        const result = await ctx.run(`tool-${call.id}`, async () => `${call.name} done`);
        messages.push({
          role: "tool",
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: "text", text: result }],
        });
      }
      return messages.length;
    },
  },
});

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const server = await startRestateServer();
const agent = createConformanceAgent({ autoApprove: true, modelDelayMs: 0, toolDelayMs: 0 }).agent;
const endpoint = await listenAgents([...restateAgents({ agents: { conformance: () => agent } }), hand], {
  logger: quiet,
});
try {
  await server.registerDeployment(endpoint.url);
  const client = new RestateAgentClient({ ingressUrl: server.ingressUrl });
  const ingress = connect({ url: server.ingressUrl });
  const times = { tinyagents: [], hand: [] };
  for (let i = -2; i < RUNS; i++) {
    // Two warm-up rounds, then alternate so both see the same machine load.
    let started = performance.now();
    await client.run("conformance", `ta-${i}`, CONFORMANCE_INPUT);
    const ta = performance.now() - started;
    started = performance.now();
    await ingress.workflowClient({ name: "bench.hand" }, `hand-${i}`).workflowSubmit();
    await ingress.workflowClient({ name: "bench.hand" }, `hand-${i}`).workflowAttach();
    const hw = performance.now() - started;
    if (i >= 0) {
      times.tinyagents.push(ta);
      times.hand.push(hw);
    }
  }
  const ta = median(times.tinyagents);
  const hw = median(times.hand);
  console.log("| Restate, sequential, 7 steps/run | ms/run (median) | ms/step |");
  console.log("| --- | --- | --- |");
  console.log(`| hand-written workflow | ${hw.toFixed(1)} | ${(hw / STEPS).toFixed(1)} |`);
  console.log(`| @tinyagents/restate | ${ta.toFixed(1)} | ${(ta / STEPS).toFixed(1)} |`);
  console.log(
    `\nOverhead over the engine's floor: ${((ta - hw) / STEPS).toFixed(1)} ms per step, ${(ta / hw).toFixed(2)}x (target <= 1.3x); ${RUNS} runs each.`,
  );
} finally {
  await endpoint.close();
  await server.stop();
}
