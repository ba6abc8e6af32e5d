// Streaming throughput of the OpenAI-compatible SSE parse path vs a bare eventsource-parser loop,
// same process, same recorded stream. The stream is generated once (deterministic): ~20k deltas
// of OpenAI chat.completion.chunk events — text deltas plus two parallel tool calls whose
// arguments arrive in small fragments, a finish chunk and a usage chunk — and served from memory
// as 16 KiB reads.
//
// Paths measured (median of SAMPLES runs after WARMUP runs):
//   bare-events:    TextDecoder + eventsource-parser, events counted (no JSON)
//   bare-json:      bare-events + JSON.parse of every data payload (the least any client does)
//   ours-parser:    readSse + JSON.parse + ChunkParser (assembler, usage, think splitter off)
//                   + StreamAccumulator  -> ModelResponse
//   ours-model:     OpenAiChatModel.stream() end to end with an in-memory fetch (adds request
//                   mapping and the Response body plumbing) + StreamAccumulator
// Usage: npm run bench:stream   (builds first; runs against packages/*/dist)
import { writeFileSync } from "node:fs";
import { ChunkParser, OpenAiChatModel, readSse, StreamAccumulator } from "@tinyagents/inference";
import { createParser } from "eventsource-parser";

const DELTAS = 20_000;
const READ_SIZE = 16 * 1024;
const WARMUP = 3;
const SAMPLES = 15;

function buildStream() {
  const head = {
    id: "chatcmpl-BENCH0123456789abcdefghijklmn",
    object: "chat.completion.chunk",
    created: 1755700000,
    model: "gpt-4.1-mini-2025-04-14",
    service_tier: "default",
    system_fingerprint: "fp_6f2eabb9a5",
  };
  const lines = [];
  const push = (delta, finish = null) =>
    lines.push(
      `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null, obfuscation: "aZ3" })}\n\n`,
    );
  push({ role: "assistant", content: "", refusal: null });
  const words = [
    "The",
    " quick",
    " brown",
    " fox",
    " jumps",
    " over",
    " the",
    " lazy",
    " dog",
    " — ",
    "naïve",
    " café",
    ",",
  ];
  const toolEvery = 5; // every 5th delta is a tool-call fragment
  let text = 0;
  let fragments = 0;
  const calls = [0, 1].map((i) => ({
    index: i,
    id: `call_${i}BENCHxxxxxxxxxxxxxxxxxxx`,
    name: i === 0 ? "write_file" : "search",
  }));
  const argText = (i) => `{"path":"src/file_${i}.ts","content":"${"x".repeat(8)}`;
  for (const call of calls) {
    push({
      tool_calls: [
        { index: call.index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
      ],
    });
  }
  for (let i = 0; lines.length < DELTAS - 3; i++) {
    if (i % toolEvery === 0) {
      const call = calls[fragments % 2];
      const piece = fragments < 2 ? argText(call.index) : "abcdefgh\\n";
      push({ tool_calls: [{ index: call.index, function: { arguments: piece } }] });
      fragments++;
    } else {
      push({ content: words[text++ % words.length] });
    }
  }
  for (const call of calls) push({ tool_calls: [{ index: call.index, function: { arguments: '"}' } }] });
  push({}, "tool_calls");
  lines.push(
    `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 1200, completion_tokens: DELTAS, total_tokens: 1200 + DELTAS, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 0 } } })}\n\n`,
  );
  lines.push("data: [DONE]\n\n");
  const bytes = new TextEncoder().encode(lines.join(""));
  const reads = [];
  for (let offset = 0; offset < bytes.length; offset += READ_SIZE)
    reads.push(bytes.subarray(offset, offset + READ_SIZE));
  return { bytes, reads, deltas: lines.length - 2, textDeltas: text, toolFragments: fragments + 4 };
}

function bodyOf(reads) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < reads.length) controller.enqueue(reads[i++]);
      else controller.close();
    },
  });
}

async function bareEvents(reads, withJson) {
  let events = 0;
  let sink = 0;
  const parser = createParser({
    onEvent(event) {
      events++;
      if (withJson && event.data !== "[DONE]") sink += JSON.parse(event.data).created;
    },
  });
  const decoder = new TextDecoder();
  const reader = bodyOf(reads).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return { events, sink };
}

async function oursParser(reads) {
  const parser = new ChunkParser({
    provider: "openai",
    thinkTags: false,
    startsInReasoning: false,
    completionExcludesReasoning: false,
    generateToolCallId: () => "gen",
  });
  const accumulator = new StreamAccumulator({ provider: "openai" });
  const out = [];
  let items = 0;
  for await (const event of readSse(bodyOf(reads))) {
    if (event.data === "[DONE]") break;
    parser.chunk(JSON.parse(event.data), out);
    for (const item of out) accumulator.push(item);
    items += out.length;
    out.length = 0;
  }
  parser.end(out);
  for (const item of out) accumulator.push(item);
  return { items: items + out.length, response: accumulator.finish() };
}

async function oursModel(reads) {
  const fetch = async () =>
    new Response(bodyOf(reads), { status: 200, headers: { "content-type": "text/event-stream" } });
  const model = new OpenAiChatModel({
    model: "gpt-4.1-mini",
    apiKey: "sk-bench",
    baseUrl: "http://bench.invalid/v1",
    fetch,
  });
  const accumulator = new StreamAccumulator({ provider: "openai" });
  let items = 0;
  for await (const item of model.stream({
    messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  })) {
    accumulator.push(item);
    items++;
  }
  return { items, response: accumulator.finish() };
}

/** Run every path WARMUP times, then SAMPLES interleaved rounds (so drift hits all paths alike). */
async function measureAll(paths) {
  for (let i = 0; i < WARMUP; i++) for (const [, run] of paths) await run();
  const times = paths.map(() => []);
  const last = [];
  for (let round = 0; round < SAMPLES; round++) {
    for (let p = 0; p < paths.length; p++) {
      const start = process.hrtime.bigint();
      last[p] = await paths[p][1]();
      times[p].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return paths.map(([name], p) => {
    const sorted = times[p].sort((a, b) => a - b);
    return { name, medianMs: sorted[Math.floor(sorted.length / 2)], minMs: sorted[0], last: last[p] };
  });
}

const stream = buildStream();
const mb = stream.bytes.length / (1024 * 1024);
console.log(
  `stream: ${stream.deltas} deltas (${stream.toolFragments} tool-call fragments), ${mb.toFixed(2)} MiB, ${stream.reads.length} reads of ${READ_SIZE / 1024} KiB`,
);

const results = await measureAll([
  ["bare-events", () => bareEvents(stream.reads, false)],
  ["bare-json", () => bareEvents(stream.reads, true)],
  ["ours-parser", () => oursParser(stream.reads)],
  ["ours-model", () => oursModel(stream.reads)],
]);

// Sanity: our path assembled the same answer.
const check = results[2].last.response;
if (check.message.toolCalls.length !== 2 || check.message.toolCalls.some((c) => c.invalid !== undefined)) {
  throw new Error("bench sanity check failed: tool calls were not assembled");
}
if (check.usage?.outputTokens !== DELTAS) throw new Error("bench sanity check failed: usage");

const bare = results[1];
const rows = results.map((r) => ({
  path: r.name,
  medianMs: Number(r.medianMs.toFixed(2)),
  minMs: Number(r.minMs.toFixed(2)),
  deltasPerSec: Math.round(stream.deltas / (r.medianMs / 1000)),
  mbPerSec: Number((mb / (r.medianMs / 1000)).toFixed(1)),
  slowdownVsBareJson: Number((r.medianMs / bare.medianMs).toFixed(2)),
  slowdownVsBareEvents: Number((r.medianMs / results[0].medianMs).toFixed(2)),
}));
console.table(rows);
const summary = {
  bench: "stream-throughput",
  node: process.version,
  date: new Date().toISOString(),
  stream: {
    deltas: stream.deltas,
    toolFragments: stream.toolFragments,
    bytes: stream.bytes.length,
    readSize: READ_SIZE,
  },
  samples: SAMPLES,
  warmup: WARMUP,
  results: rows,
};
writeFileSync(
  new URL("./results/stream-throughput.json", import.meta.url),
  `${JSON.stringify(summary, null, 2)}\n`,
);
console.log("wrote bench/results/stream-throughput.json");
