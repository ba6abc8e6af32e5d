// Front door vs lower layer (issue 33 item 6), side by side in ONE process: the same agent setup
// (bench/adapters/tinyagents.mjs: the fake model and the async zod tool every adapter gets) run
// through `agent.run` / `agent.stream` and through the internal lower layer
// (`lowerLayer(agent).invokeDefault` / `invokeStreamingDefault`, what the positional API was).
// The paths take turns round by round, so load changes hit them alike; each figure is the
// median over rounds, timed in CPU time of this process (process.cpuUsage, user + system: steadier
// than wall time on a shared machine; W3 reports wall time too). Target: front door <= 1.1x the
// lower layer.
//
//   W1  microseconds per step, S = 1 and S = 100 (runs back to back)
//   W2  text deltas per second through the stream (10,000 deltas per run)
//   W3  1,000 concurrent 5-step runs (each model call yields one event-loop turn): total ms
//
// `--base DIR` adds a third path: the positional lower layer (`invokeDefault` /
// `invokeStreamingDefault`) of another tree's build — main before this change, say — built with
// `node scripts/build/bundle.mjs --js-only` in its packages/inference and packages/harness (the
// tree needs a node_modules with zod). Its ratio is against that base.
//
// Usage: npm run build && node bench/front-door.mjs [--rounds 7] [--quick] [--json] [--base DIR]
// `--quick` checks both paths' results and call counts once each, no timing (bench/run.mjs --quick).
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { lowerLayer } from "@tinyagents/harness/internal";
import { z } from "zod";
import { consumeStream, scriptedAgent, scriptedModel } from "./adapters/tinyagents.mjs";
import { intArg, parseArgs } from "./lib/args.mjs";
import { emit, expectEqual } from "./lib/child.mjs";
import { finalText, newCounters, PROMPT, streamedText, TOOL_DESCRIPTION, TOOL_NAME } from "./lib/script.mjs";
import { median, since } from "./lib/stats.mjs";

const args = parseArgs();
const quick = args.quick === true;
const rounds = quick ? 1 : intArg(args, "rounds", 7);
const DELTAS = 10_000;
const W3_RUNS = quick ? 20 : 1_000;
const W3_STEPS = 5;

/** CPU milliseconds of `fn()` (awaited), user + system. */
async function cpuMs(fn) {
  const before = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * Warm up `once` for `warmupMs` (and at least 3 calls), then the median CPU ms per call over
 * `samples` samples of `perSample` calls each.
 */
async function cpuPerCall(once, { warmupMs, perSample, samples = 3 }) {
  const start = performance.now();
  for (let n = 0; n < 3 || since(start) < warmupMs; n++) await once();
  const perCall = [];
  for (let k = 0; k < samples; k++) {
    perCall.push(
      (await cpuMs(async () => {
        for (let i = 0; i < perSample; i++) await once();
      })) / perSample,
    );
  }
  return median(perCall);
}

const lastText = (run) => {
  const last = run.messages[run.messages.length - 1];
  return last.content.map((part) => part.text ?? "").join("");
};

/** The ways in, over agents built the same way (`build`: the agent of a fake model). */
const PATHS = {
  "front door": {
    build: scriptedAgent,
    loop: (agent) => () => agent.run(PROMPT),
    stream: (agent) => () => consumeStream(agent.stream(PROMPT)),
    text: (result) => result.text,
  },
  "lower layer": {
    build: scriptedAgent,
    loop: (agent) => {
      const layer = lowerLayer(agent);
      return () => layer.invokeDefault(undefined, PROMPT);
    },
    stream: (agent) => {
      const layer = lowerLayer(agent);
      return () => consumeStream(layer.invokeStreamingDefault(undefined, PROMPT));
    },
    text: lastText,
  },
};

if (typeof args.base === "string") {
  const base = await import(pathToFileURL(join(resolve(args.base), "packages/harness/dist/index.js")).href);
  PATHS["base lower layer"] = {
    // The base build's own AgentHarness and tool(), the same async zod tool.
    build: (model, counters, steps) =>
      new base.AgentHarness({ policy: { limits: { maxModelCalls: steps + 1, maxToolCalls: steps + 1 } } })
        .registerModel("bench", model)
        .registerTool(
          base.tool({
            name: TOOL_NAME,
            description: TOOL_DESCRIPTION,
            inputSchema: z.object({ n: z.number() }),
            execute: async ({ n }) => {
              counters.tool++;
              return String(n);
            },
          }),
        ),
    loop: (agent) => () => agent.invokeDefault(undefined, PROMPT),
    stream: (agent) => () => consumeStream(agent.invokeStreamingDefault(undefined, PROMPT)),
    text: lastText,
  };
}
const NAMES = Object.keys(PATHS);

/** W1: a loop runner per path; `sample()` returns µs per step of one timed sample set. */
function w1(path, steps) {
  const counters = newCounters();
  const agent = PATHS[path].build(scriptedModel({ steps, counters }), counters, steps);
  const run = PATHS[path].loop(agent);
  const expected = finalText(steps);
  let runs = 0;
  const once = async () => {
    expectEqual(`${path} S=${steps} final text`, PATHS[path].text(await run()), expected);
    runs++;
  };
  return {
    async sample() {
      if (quick) return void (await once());
      const msPerRun = await cpuPerCall(once, { warmupMs: 300, perSample: Math.ceil(2_000 / steps) });
      return (msPerRun * 1000) / steps;
    },
    check() {
      expectEqual(`${path} S=${steps} model calls`, counters.model, runs * steps);
      expectEqual(`${path} S=${steps} tool calls`, counters.tool, runs * (steps - 1));
    },
  };
}

/** W2: a stream runner per path; `sample()` returns deltas per second. */
function w2(path) {
  const counters = newCounters();
  const agent = PATHS[path].build(scriptedModel({ deltas: DELTAS, counters }), counters, 1);
  const run = PATHS[path].stream(agent);
  const expected = streamedText(DELTAS);
  const once = async () => {
    const { received, text } = await run();
    expectEqual(`${path} deltas received`, received, DELTAS);
    expectEqual(`${path} streamed text`, text, expected);
  };
  return {
    async sample() {
      if (quick) return void (await once());
      const msPerRun = await cpuPerCall(once, { warmupMs: 200, perSample: 5 });
      return DELTAS / (msPerRun / 1000);
    },
    check() {
      expectEqual(`${path} stream tool calls`, counters.tool, 0);
    },
  };
}

/** W3: `sample()` starts W3_RUNS runs at once and returns the CPU ms until all finished. */
function w3(path) {
  const counters = newCounters();
  const agent = PATHS[path].build(
    scriptedModel({ steps: W3_STEPS, yieldEachCall: true, counters }),
    counters,
    W3_STEPS,
  );
  const run = PATHS[path].loop(agent);
  const expected = finalText(W3_STEPS);
  let runs = 0;
  const batch = async (n) => {
    const results = await Promise.all(Array.from({ length: n }, () => run()));
    for (const result of results) expectEqual(`${path} W3 final text`, PATHS[path].text(result), expected);
    runs += n;
  };
  let warm = false;
  const wall = [];
  return {
    wall,
    async sample() {
      if (!warm && !quick) {
        await batch(100);
        await batch(100);
        warm = true;
      }
      const start = performance.now();
      const cpu = await cpuMs(() => batch(W3_RUNS));
      wall.push(since(start));
      return cpu;
    },
    check() {
      expectEqual(`${path} W3 model calls`, counters.model, runs * W3_STEPS);
    },
  };
}

const CELLS = [
  { name: "W1 S=1", unit: "µs/step", lowerIsBetter: true, make: (path) => w1(path, 1) },
  { name: "W1 S=100", unit: "µs/step", lowerIsBetter: true, make: (path) => w1(path, 100) },
  { name: "W2 stream", unit: "deltas/s", lowerIsBetter: false, make: (path) => w2(path) },
  { name: "W3 1,000 x 5 steps", unit: "CPU ms", lowerIsBetter: true, make: (path) => w3(path) },
];

const rows = [];
for (const cell of CELLS) {
  const runners = Object.fromEntries(NAMES.map((path) => [path, cell.make(path)]));
  const figures = Object.fromEntries(NAMES.map((path) => [path, []]));
  for (let r = 0; r < rounds; r++) {
    // Rotate which path goes first, so none always runs on a warmer or cooler machine.
    for (let i = 0; i < NAMES.length; i++) {
      const path = NAMES[(r + i) % NAMES.length];
      figures[path].push(await runners[path].sample());
    }
  }
  for (const path of NAMES) runners[path].check();
  if (quick) continue;
  const medians = Object.fromEntries(NAMES.map((path) => [path, median(figures[path])]));
  const front = medians["front door"];
  // "How much more the front door costs": >1 is slower, whatever the unit.
  const cost = (other) => (cell.lowerIsBetter ? front / other : other / front);
  const row = { cell: cell.name, unit: cell.unit, medians, figures };
  row.ratio = cost(medians["lower layer"]);
  if (medians["base lower layer"] !== undefined) row.ratioToBase = cost(medians["base lower layer"]);
  if (runners["front door"].wall !== undefined) {
    row.wallMs = Object.fromEntries(NAMES.map((path) => [path, median(runners[path].wall)]));
  }
  rows.push(row);
}

if (quick) {
  // One JSON line, as bench/run.mjs reads a child's result.
  emit({ check: "front door vs lower layer", paths: NAMES, ok: true });
} else if (args.json === true) {
  process.stdout.write(`${JSON.stringify({ node: process.version, rounds, rows }, null, 2)}\n`);
} else {
  const fmt = (n) => (n >= 10_000 ? Math.round(n).toLocaleString("en-US") : n.toFixed(2));
  const hasBase = NAMES.includes("base lower layer");
  process.stdout.write(`node ${process.version}, ${rounds} rotating rounds, medians of CPU time\n\n`);
  process.stdout.write(
    `| workload | ${NAMES.join(" | ")} | front door / lower layer |${hasBase ? " front door / base lower layer |" : ""}\n` +
      `|---|${NAMES.map(() => "---|").join("")}---|${hasBase ? "---|" : ""}\n`,
  );
  for (const row of rows) {
    const cells = NAMES.map((path) => fmt(row.medians[path])).join(" | ");
    const base = hasBase ? ` ${row.ratioToBase.toFixed(2)}x |` : "";
    process.stdout.write(`| ${row.cell} (${row.unit}) | ${cells} | ${row.ratio.toFixed(2)}x |${base}\n`);
  }
  const w3 = rows.find((row) => row.wallMs !== undefined);
  if (w3 !== undefined) {
    const walls = NAMES.map((path) => `${path} ${fmt(w3.wallMs[path])} ms`).join(", ");
    process.stdout.write(`\nW3 wall time (median): ${walls}\n`);
  }
}
