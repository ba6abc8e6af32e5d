// Profiling aid: drive one adapter's W1 loop (or W2 stream) for --ms milliseconds in this
// process, to be started with `node --cpu-prof` / `--heap-prof`:
//   node --cpu-prof --cpu-prof-dir /tmp/prof bench/tools/profile-loop.mjs --adapter tinyagents --steps 10
//   node --cpu-prof bench/tools/profile-loop.mjs --adapter tinyagents --deltas 10000
// Summarize a .cpuprofile with bench/tools/top-functions.mjs.
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { newCounters } from "../lib/script.mjs";

const args = parseArgs();
const adapter = await loadAdapter(args.adapter ?? "tinyagents");
const ms = intArg(args, "ms", 3000);
const counters = newCounters();
const run =
  args.deltas === undefined
    ? adapter.createLoop({ steps: intArg(args, "steps", 10), counters })
    : adapter.createStream({ deltas: intArg(args, "deltas"), counters });
const end = performance.now() + ms;
let runs = 0;
while (performance.now() < end) {
  await run();
  runs++;
}
process.stderr.write(`${adapter.info.name}: ${runs} runs, ${counters.model} model calls in ${ms} ms\n`);
