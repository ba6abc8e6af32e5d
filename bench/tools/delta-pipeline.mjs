// Profiling aid (not part of the suite): CPU nanoseconds per streamed delta spent by what listens
// on a run's EventSink, without the model, the loop or the stream consumer around it. One process,
// alternating rounds: each "run" is a fresh EventSink with one no-op listener (the stream's), the
// variant's listeners, run.started, model.started, N `model.text_delta` emitted synchronously,
// model.completed, then the variant's close().
//   none        nothing more (the EventSink alone)
//   noop        a second no-op listener (the cost of a second listener)
//   sqlite      attachObservability with the SQLite journal and status store (the CLI wiring)
//   memjournal  attachObservability with an InMemoryEventJournal (no storage cost)
// Usage: node bench/tools/delta-pipeline.mjs [--variants none,sqlite] [--deltas 10000] [--rounds 8]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AppendLogEventJournal,
  attachObservability,
  EventSink,
  InMemoryEventJournal,
} from "@tinyagents/harness";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { intArg, parseArgs } from "../lib/args.mjs";
import { DELTA } from "../lib/script.mjs";

const args = parseArgs();
const N = intArg(args, "deltas", 10_000);
const rounds = intArg(args, "rounds", 8);
const dir = mkdtempSync(join(tmpdir(), "tinyagents-delta-pipeline-"));
const store = SqliteStore.open(join(dir, "store.sqlite"));
process.once("exit", () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const journal = new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" });
const variants = {
  none: () => ({ close: async () => {} }),
  noop: (events) => {
    const unsubscribe = events.subscribe(() => {});
    return { close: async () => unsubscribe() };
  },
  sqlite: (events) => attachObservability(events, { journal, statusStore: store.statusStore }),
  memjournal: (events) => attachObservability(events, { journal: new InMemoryEventJournal() }),
};
let runs = 0;
async function once(name) {
  const runId = `run-${++runs}`;
  const events = new EventSink(runId);
  const unsubscribe = events.subscribe(() => {});
  const attached = variants[name](events);
  const scope = { runId, rootRunId: runId, depth: 0 };
  const model = { callId: `${runId}-call-1`, model: "m", provider: "p", providerModelId: "m", attempt: 1 };
  events.emit(scope, { type: "run.started", input: 1 });
  events.emit(scope, { type: "model.started", ...model });
  for (let i = 0; i < N; i++)
    events.emitDelta(scope, { type: "model.text_delta", callId: model.callId, text: DELTA });
  events.emit(scope, {
    type: "model.completed",
    callId: model.callId,
    model: "m",
    durationMs: 1,
    toolCalls: 0,
    servedFromCache: false,
  });
  await attached.close();
  unsubscribe();
}
const names = typeof args.variants === "string" ? args.variants.split(",") : Object.keys(variants);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let round = -2; round < rounds; round++) {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const before = process.cpuUsage();
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < 80) {
      await once(name);
      n++;
    }
    const used = process.cpuUsage(before);
    if (round >= 0) samples[name].push(((used.user + used.system) * 1000) / (n * N));
  }
}
for (const name of names) {
  const xs = samples[name].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(11)} ${xs[xs.length >> 1].toFixed(0).padStart(5)} ns CPU per delta (median of ${rounds})`,
  );
}
