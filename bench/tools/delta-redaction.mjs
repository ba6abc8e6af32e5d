// Profiling aid (not part of the suite): CPU per delta record of the redaction stage of the
// observability pipeline, in ONE process, alternating rounds: `walk` is `Redactor.redact` on the
// record (what `RedactingSink` did for every record before finding 19), `sink` is `RedactingSink`
// (the per-delta fast path, same output) writing into a sink that keeps nothing. The records are
// W2's: what `EventSink.emitDelta` builds for 10,000 `model.text_delta` events of one call.
// Usage: node bench/tools/delta-redaction.mjs [--rounds 40] [--text ab]
import { EventSink } from "@tinyagents/harness";
import { RedactingSink, Redactor } from "@tinyagents/harness/observability";
import { intArg, parseArgs } from "../lib/args.mjs";
import { DELTA } from "../lib/script.mjs";

const args = parseArgs();
const rounds = intArg(args, "rounds", 40);
const text = args.text ?? DELTA;
const records = [];
const events = new EventSink("run-1");
events.subscribe((record) => records.push(record));
const scope = { runId: "run-1", rootRunId: "run-1", depth: 0 };
for (let i = 0; i < 10_000; i++)
  events.emitDelta(scope, { type: "model.text_delta", callId: "run-1-call-1", text });

const redactor = new Redactor();
let kept = 0;
const sink = new RedactingSink({ write: (o) => (kept += o.offset & 1) }, redactor);
const designs = {
  walk: () => {
    for (const record of records) kept += redactor.redact(record).offset & 1;
  },
  sink: () => {
    for (const record of records) sink.write(record);
  },
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};
const samples = { walk: [], sink: [] };
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(designs)) {
    const start = cpuMs();
    for (let j = 0; j < 10; j++) run();
    samples[name].push(((cpuMs() - start) * 1e6) / (10 * records.length));
  }
}
const median = (values) => {
  const warm = values.slice(Math.floor(values.length / 4)).sort((a, b) => a - b);
  return warm[Math.floor(warm.length / 2)] ?? 0;
};
const walk = median(samples.walk);
const fast = median(samples.sink);
console.log(
  `ns CPU per delta record (median of the last ${rounds - Math.floor(rounds / 4)} rounds): walk ${walk.toFixed(0)}, ` +
    `RedactingSink ${fast.toFixed(0)} (${(fast / walk).toFixed(2)}x)`,
);
