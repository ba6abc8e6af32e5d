// Per-step overhead of @tinyagents/restate against the engine's own floor (issue 36): the
// conformance scenario (4 model calls, 3 tool calls, zero-delay fakes, the deploy approved by
// rule) run as a tinyagents Restate workflow, beside a hand-written Restate workflow doing the
// same 7 steps (`ctx.run` around the same fake model reply and trivial tool work), both served by
// one endpoint in this process against a restate-server from node_modules on loopback. Sequential
// runs, alternating the two, median ms per run; per step = (tinyagents - hand-written) / 7. Then
// the profile: the Restate journal entries of one run of each, by type (every command that waits
// for the server's answer is a round trip). Standalone, against the BUILT packages (`npm run
// build` first). Prints Markdown tables.
//   node bench/scale-out/engine-floor-restate.mjs [runs=15]
import { serde, workflow } from "@restatedev/restate-sdk";
import { connect } from "@restatedev/restate-sdk-clients";
import { CONFORMANCE_INPUT, createConformanceAgent } from "@tinyagents/harness/testkit";
import { listenAgents, RestateAgentClient, restateAgents } from "@tinyagents/restate";
import { startRestateServer } from "@tinyagents/restate/testing";
import { handWrittenRun, measureAlternating, printFloorTable } from "./engine-floor-lib.mjs";

const RUNS = Number(process.argv[2] ?? 15);
const quiet = (meta, message, ...rest) => {
  if (meta.level === "error") console.error(message, ...rest);
};

/** The hand-written workflow: the scenario's 7 steps as plain `ctx.run` calls. */
const hand = workflow({
  name: "bench.hand",
  handlers: {
    run: async (ctx) => handWrittenRun((name, fn) => ctx.run(name, fn, { serde: serde.json })),
  },
});

const server = await startRestateServer();
const agent = createConformanceAgent({ autoApprove: true, modelDelayMs: 0, toolDelayMs: 0 }).agent;
const endpoint = await listenAgents([...restateAgents({ agents: { conformance: () => agent } }), hand], {
  logger: quiet,
});
try {
  await server.registerDeployment(endpoint.url);
  const client = new RestateAgentClient({ ingressUrl: server.ingressUrl });
  const ingress = connect({ url: server.ingressUrl });
  const handRun = async (id) => {
    const submitted = await ingress.workflowClient({ name: "bench.hand" }, id).workflowSubmit();
    await ingress.workflowClient({ name: "bench.hand" }, id).workflowAttach();
    return submitted.invocationId;
  };
  const medians = await measureAlternating(
    RUNS,
    (id) => client.run("conformance", id, CONFORMANCE_INPUT),
    handRun,
  );
  printFloorTable("Restate", "@tinyagents/restate", RUNS, medians);

  // Profile: where the extra round trips come from.
  const ta = await client.start("conformance", "ta-profile", CONFORMANCE_INPUT);
  await client.result("conformance", "ta-profile");
  const entries = async (invocationId) => {
    const rows = await server.query(
      `SELECT entry_type, name FROM sys_journal WHERE id = '${invocationId}' ORDER BY index`,
    );
    const counts = new Map();
    for (const row of rows) {
      const key =
        row.entry_type === "Command: Run" && row.name === "" ? "Command: Run (unnamed)" : row.entry_type;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  };
  const taEntries = await entries(ta.invocationId);
  const handEntries = await entries(await handRun("hand-profile"));
  console.log("\n| journal entries of one run, by type | hand-written | @tinyagents/restate |");
  console.log("| --- | --- | --- |");
  for (const type of [...new Set([...handEntries.keys(), ...taEntries.keys()])].sort()) {
    console.log(`| ${type} | ${handEntries.get(type) ?? 0} | ${taEntries.get(type) ?? 0} |`);
  }
} finally {
  await endpoint.close();
  await server.stop();
}
