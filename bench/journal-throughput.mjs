// Journal append throughput: events per second through a JournalSink into an in-memory journal,
// a JSONL journal (one file per run tree) and a SQLite journal, same process, same events.
// Emission pauses (back-pressure) whenever the sink has 5,000 observations queued, so nothing
// is dropped: the figure is the sustained rate including the final flush.
// Usage: npm run bench:journal   (builds first; runs against packages/*/dist)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppendLogEventJournal, EventSink, InMemoryEventJournal } from "@tinyagents/harness";
import { JsonlAppendLog } from "@tinyagents/harness/node";
import { JournalSink, RedactingSink } from "@tinyagents/harness/observability";
import { SqliteStore } from "@tinyagents/harness/sqlite";

const EVENTS = 200_000;
const SAMPLES = 5;
const HIGH_WATER = 5_000;

/** A realistic mix: a model call with deltas and usage, then a tool call with arguments. */
const usage = {
  inputTokens: 1200,
  outputTokens: 80,
  totalTokens: 1280,
  cacheReadTokens: 1000,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
const cycle = [
  {
    type: "model.started",
    callId: "run-model-1",
    model: "m",
    provider: "openai",
    providerModelId: "gpt-4.1",
    attempt: 1,
  },
  { type: "model.text_delta", callId: "run-model-1", text: "Hello, this is a streamed token" },
  { type: "model.text_delta", callId: "run-model-1", text: " and another one" },
  {
    type: "model.completed",
    callId: "run-model-1",
    model: "m",
    durationMs: 812,
    usage,
    finishReason: "tool_calls",
    toolCalls: 1,
    servedFromCache: false,
  },
  { type: "usage.recorded", callId: "run-model-1", model: "m", usage },
  {
    type: "tool.started",
    callId: "call_1",
    toolName: "search",
    arguments: { query: "weather in Oslo", limit: 5 },
  },
  {
    type: "tool.completed",
    callId: "call_1",
    toolName: "search",
    durationMs: 35,
    isError: false,
    outputBytes: 2048,
  },
  { type: "state.updated", step: 1, messages: 6 },
];

async function emitAll(sinkFor) {
  const events = new EventSink("bench-root");
  const { sink, close } = sinkFor();
  events.subscribe((record) => sink.write(record));
  const journal = sink.journalSink ?? sink;
  const scope = { runId: "bench-root", rootRunId: "bench-root", depth: 0 };
  const start = process.hrtime.bigint();
  for (let i = 0; i < EVENTS; i++) {
    events.emit(scope, cycle[i % cycle.length]);
    if (journal.queued >= HIGH_WATER) await journal.flush();
  }
  await sink.flush();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const dropped = journal.dropped;
  await close();
  return { eventsPerSecond: EVENTS / seconds, dropped };
}

const dirs = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "tinyagents-bench-journal-"));
  dirs.push(dir);
  return dir;
};
const sinks = {
  "in-memory": () => {
    const sink = new JournalSink(new InMemoryEventJournal());
    return { sink, close: async () => {} };
  },
  jsonl: () => {
    const log = new JsonlAppendLog(tempDir());
    const sink = new JournalSink(new AppendLogEventJournal(log));
    return { sink, close: () => log.close() };
  },
  sqlite: () => {
    const store = SqliteStore.open(join(tempDir(), "journal.sqlite"));
    const sink = new JournalSink(new AppendLogEventJournal(store.appendLog));
    return { sink, close: async () => store.close() };
  },
  "in-memory + redaction": () => {
    const journalSink = new JournalSink(new InMemoryEventJournal());
    const sink = Object.assign(new RedactingSink(journalSink), { journalSink });
    return { sink, close: async () => {} };
  },
};

const results = [];
try {
  for (const [name, sinkFor] of Object.entries(sinks)) {
    await emitAll(sinkFor); // warm-up
    const samples = [];
    let dropped = 0;
    for (let s = 0; s < SAMPLES; s++) {
      const r = await emitAll(sinkFor);
      samples.push(r.eventsPerSecond);
      dropped += r.dropped;
    }
    samples.sort((a, b) => a - b);
    results.push({
      sink: name,
      median: samples[Math.floor(SAMPLES / 2)],
      min: samples[0],
      max: samples.at(-1),
      dropped,
    });
  }
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

const base = results[0].median;
const pad = (s, n) => String(s).padStart(n);
const k = (n) => `${(n / 1000).toFixed(0)}k`;
console.log(
  `node ${process.version} — journal append throughput, ${EVENTS} events x ${SAMPLES} samples (events/s, median [min-max])\n`,
);
console.log(`${"sink".padEnd(24)} ${pad("events/s", 22)} ${pad("vs in-memory", 13)} ${pad("dropped", 8)}`);
for (const r of results) {
  console.log(
    `${r.sink.padEnd(24)} ${pad(`${k(r.median)} [${k(r.min)}-${k(r.max)}]`, 22)} ${pad(`${(r.median / base).toFixed(2)}x`, 13)} ${pad(r.dropped, 8)}`,
  );
}
const out = new URL("./results/journal-throughput.json", import.meta.url);
writeFileSync(
  out,
  `${JSON.stringify({ node: process.version, date: new Date().toISOString(), events: EVENTS, results: results.map((r) => ({ ...r, ratio: r.median / base })) }, null, 2)}\n`,
);
console.log(`\nwrote ${out.pathname}`);
