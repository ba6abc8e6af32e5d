// Soak test (benchmark-style, not part of CI): `npm run soak`.
//
// One long-lived harness — like a server — runs 10,000 agent runs one after another, then
// 1,000 at once, then 1,000 at once again, with a scripted model (a tool call, then an answer),
// a tool, two middleware and the whole observability pipeline (event sink, journal, status store
// and projections, bounded to the last 100 runs so that retained history is constant). Every
// run's events are subscribed to and dropped.
//
// After each phase the heap is measured after forced GCs. The heap must stay flat: within 10%
// of the warmed-up baseline (plus 1 MiB of slack for allocator noise on a small heap), else the
// script exits with code 1. Needs `node --expose-gc` (the npm script passes it).
//
// Options: --sequential N (default 10000), --concurrent N (default 1000), --json (one JSON line).
import {
  AgentHarness,
  attachObservability,
  EventSink,
  InMemoryEventJournal,
  InMemoryHarnessStatusStore,
  loggingMiddleware,
  retryMiddleware,
  tool,
} from "@tinyagents/harness";
import { assistant, usage } from "@tinyagents/inference";

if (typeof globalThis.gc !== "function") {
  console.error("soak: run with node --expose-gc (npm run soak does)");
  process.exit(2);
}

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const SEQUENTIAL = option("sequential", 10_000);
const CONCURRENT = option("concurrent", 1_000);
const TOLERANCE = 0.1;
const SLACK_BYTES = 1024 * 1024;

/**
 * The scripted model: turn one asks for the `lookup` tool, turn two (once a tool result is in
 * the transcript) answers. Stateless, so any number of runs can share it, concurrently.
 */
const scriptedModel = {
  provider: "scripted",
  modelId: "soak",
  cacheIdentity: "scripted:soak",
  async invoke(request) {
    const last = request.messages.at(-1);
    if (last?.role === "tool") {
      return {
        message: assistant("the answer is 42"),
        finishReason: "stop",
        usage: usage({ inputTokens: 30, outputTokens: 6 }),
      };
    }
    return {
      message: assistant("", [{ id: "call-1", name: "lookup", arguments: { q: "meaning" } }]),
      finishReason: "tool_calls",
      usage: usage({ inputTokens: 20, outputTokens: 5 }),
    };
  },
};

const harness = new AgentHarness({ instructions: "You are a soak test." });
harness.registerModel("scripted", scriptedModel);
harness.registerTool(
  tool({
    name: "lookup",
    description: "Look something up.",
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    execute: (input) => ({ found: String(input.q), score: 0.9 }),
  }),
);
harness.use(loggingMiddleware());
harness.use(retryMiddleware({ policy: { maxRetries: 1 } }));

const journal = new InMemoryEventJournal({ maxRuns: 100 });
const statusStore = new InMemoryHarnessStatusStore({ maxFinishedRuns: 100 });

let runCounter = 0;
let events = 0;
async function oneRun() {
  const runId = `soak-${++runCounter}`;
  const sink = new EventSink(runId);
  const unsubscribe = sink.subscribe(() => {
    events++;
  });
  const observability = attachObservability(sink, { journal, statusStore });
  const run = await harness.run("what is the meaning of life?", { runId, events: sink });
  await observability.close();
  unsubscribe();
  if (run.modelCalls !== 2 || run.toolCalls !== 1)
    throw new Error(`soak: unexpected run ${JSON.stringify(run)}`);
}

async function settledHeap() {
  for (let i = 0; i < 6; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

// Warm up: JIT, caches and the bounded stores reach their steady size (100 runs retained).
for (let i = 0; i < 500; i++) await oneRun();
const baseline = await settledHeap();

const phases = [];
async function phase(name, runs, body) {
  const started = performance.now();
  await body();
  const ms = performance.now() - started;
  const heap = await settledHeap();
  const growth = (heap - baseline) / baseline;
  phases.push({
    name,
    runs,
    ms: Math.round(ms),
    runsPerSecond: Math.round((runs / ms) * 1000),
    heap,
    growth,
  });
}

await phase("sequential", SEQUENTIAL, async () => {
  for (let i = 0; i < SEQUENTIAL; i++) await oneRun();
});
await phase("concurrent", CONCURRENT, () => Promise.all(Array.from({ length: CONCURRENT }, oneRun)));
await phase("concurrent again", CONCURRENT, () => Promise.all(Array.from({ length: CONCURRENT }, oneRun)));

const flat = phases.every((p) => p.heap <= baseline * (1 + TOLERANCE) + SLACK_BYTES);
const report = {
  node: process.version,
  baselineHeap: baseline,
  events,
  phases: phases.map((p) => ({ ...p, growthPercent: Number((p.growth * 100).toFixed(2)) })),
  flat,
};
if (args.includes("--json")) console.log(JSON.stringify(report));
else {
  console.log(`soak on node ${process.version}: baseline heap after warm-up ${mib(baseline)}`);
  for (const p of phases) {
    console.log(
      `  ${p.name.padEnd(17)} ${String(p.runs).padStart(6)} runs in ${String(p.ms).padStart(6)} ms ` +
        `(${String(p.runsPerSecond).padStart(6)} runs/s)  heap after GC ${mib(p.heap)} (${(p.growth * 100).toFixed(2)}%)`,
    );
  }
  console.log(
    `  ${events} events observed; heap ${flat ? "flat" : "NOT flat"} (limit +${TOLERANCE * 100}% + 1 MiB)`,
  );
}
process.exit(flat ? 0 : 1);
