// Issue 38 (c): how long replaying a 50-model-call cassette takes (wall and CPU, median of
// --rounds replays after one warm-up). The cassette is recorded first: an agent whose scripted
// model makes 49 tool calls, one per call, then answers; journaled with content capture into an
// in-memory journal and turned into a cassette (`cassetteFromObservations`). Each replay builds a
// fresh agent and runs `replayRun` on it (request diffing included). Uses the BUILT packages.
// Usage: node bench/tools/replay-cassette.mjs [--rounds 9] [--calls 50]
import {
  AgentHarness,
  attachObservability,
  EventSink,
  InMemoryEventJournal,
  tool,
} from "@tinyagents/harness";
import { traceDetailsMiddleware } from "@tinyagents/harness/observability";
import { cassetteFromObservations, replayRun, ScriptedModel } from "@tinyagents/harness/testkit";
import { intArg, parseArgs } from "../lib/args.mjs";

const args = parseArgs();
const rounds = intArg(args, "rounds", 9);
const calls = intArg(args, "calls", 50);

function agent() {
  const script = [];
  for (let i = 1; i < calls; i++) {
    script.push({ toolCalls: [{ id: `call_${i}`, name: "lookup", arguments: { key: `k${i}` } }] });
  }
  script.push("All keys looked up.");
  return new AgentHarness({ instructions: "Look every key up, one call at a time.\nThen say so." })
    .registerModel("m", new ScriptedModel(script))
    .withPolicy({ limits: { maxModelCalls: calls + 1, maxToolCalls: calls + 1 } })
    .registerTool(
      tool({
        name: "lookup",
        description: "Look a key up.",
        inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
        execute: async (input) => ({ key: input.key, value: `value of ${input.key}`, found: true }),
      }),
    )
    .use(traceDetailsMiddleware({ captureContent: true }));
}

const journal = new InMemoryEventJournal();
const events = new EventSink("bench-run");
const obs = attachObservability(events, { journal });
await agent().run("Look up k1..k49.", { runId: "bench-run", events });
await obs.close();
const cassette = cassetteFromObservations("bench-run", await journal.read("bench-run"));
if (cassette.run.modelCalls.length !== calls)
  throw new Error(`recorded ${cassette.run.modelCalls.length} calls`);

async function once() {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const report = await replayRun(agent(), cassette);
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (report.result.text !== "All keys looked up.") throw new Error("replay answered differently");
  return { wall, cpu: (used.user + used.system) / 1000 };
}

await once(); // warm-up (JIT, module init)
const samples = [];
for (let i = 0; i < rounds; i++) samples.push(await once());
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wall = median(samples.map((s) => s.wall));
const cpu = median(samples.map((s) => s.cpu));
console.log(
  `replay of a ${calls}-model-call cassette (${cassette.run.toolCalls.length} tool calls): ` +
    `median ${wall.toFixed(1)} ms wall, ${cpu.toFixed(1)} ms CPU over ${rounds} replays ` +
    `(max ${Math.max(...samples.map((s) => s.wall)).toFixed(1)} ms wall; target < 1000 ms)`,
);
