// W2 in one process: the hand-written floor beside minimal hand-off designs and tinyagents, to
// see how close any design that keeps our streaming guarantees can get to the floor.
//   npm run build && node bench/tools/w2-designs.mjs [--slices 12] [--deltas 10000] [--base DIR]
// `--base DIR` adds the agent.stream and sqlite rows for another checkout's build (DIR/packages/harness/dist),
// e.g. `git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)`: a
// before/after in one process, under the same load.
// Every design streams the same deltas (the bench's scripted model: an async generator of
// `{ type: "text_delta" }` items) to a `for await` consumer that counts them. Slices of ~100 ms
// alternate between the designs; the rate is deltas per CPU-second (user + system) of the
// slice, and the ratio to the floor is taken slice by slice (same load), then the median.
//
//   floor        the hand-written loop: `for await` over the provider's generator (2 promise jobs per delta)
//   read         a reader awaiting the provider's `next()` and counting: what reading costs (≈ floor)
//   handoff      reader → queue → `for await` consumer, raw items: the least any design that lets the
//                run go on while the consumer reads can do (3 promise jobs per delta; no record)
//   record       handoff + one event record per delta (id, offset, a shared timestamp, the event and
//                the `{ type: "event", record }` item): the minimal design with our guarantees
//   tinyagents   `agent.stream` as bench/adapters/tinyagents.mjs reads it (the W2 row)
//   agent.stream `createAgent(...).stream(...)` items
//   sqlite       the W2 row with the SQLite journal and status store wired as the CLI wires them
//                (bench/adapters/tinyagents-sqlite.mjs; its writes run in this process, so CPU counts them)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createAgent } from "@tinyagents/harness";
import { createStream, scriptedModel } from "../adapters/tinyagents.mjs";
import { createStream as createSqliteStream } from "../adapters/tinyagents-sqlite.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { DELTA, newCounters, PROMPT } from "../lib/script.mjs";

const args = parseArgs();
const deltas = intArg(args, "deltas", 10_000);
const slices = intArg(args, "slices", 12);

async function* provider() {
  yield { type: "start" };
  for (let i = 0; i < deltas; i++) yield { type: "text_delta", text: DELTA };
  yield { type: "finish", finishReason: "stop" };
}

/** The bench's single-consumer queue, reduced: a read that finds nothing waits on one promise. */
class Queue {
  items = [];
  head = 0;
  waiting = undefined;
  closed = false;
  wait = (resolve) => {
    this.waiting = resolve;
  };
  push(item) {
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting({ value: item, done: false });
    } else this.items.push(item);
  }
  close() {
    this.closed = true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }
  next() {
    if (this.head < this.items.length) {
      const value = this.items[this.head];
      this.items[this.head++] = undefined;
      return Promise.resolve({ value, done: false });
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise(this.wait);
  }
  [Symbol.asyncIterator]() {
    return this;
  }
}

let offset = 0;
let reading = 0;
let reuses = 0;
function record(event) {
  const o = offset++;
  if (reuses-- <= 0) {
    reading = Date.now();
    reuses = 15;
  }
  return { id: `run-evt-${o}`, offset: o, ts: reading, runId: "run", rootRunId: "run", depth: 0, event };
}

/** A reader task (awaiting the provider) feeding `onItem`, and a consumer counting what the queue gives. */
function twoStage(onItem) {
  return async () => {
    const queue = new Queue();
    (async () => {
      const iterator = provider()[Symbol.asyncIterator]();
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        if (next.value.type === "text_delta") queue.push(onItem(next.value));
      }
      queue.close();
    })();
    let received = 0;
    for await (const item of queue) if (item !== undefined) received++;
    return received;
  };
}

const designs = {
  async floor() {
    async function* stream() {
      for (let i = 0; i < deltas; i++) yield DELTA;
    }
    let received = 0;
    let text = "";
    for await (const delta of stream()) {
      received++;
      text += delta;
    }
    return text.length > 0 ? received : 0;
  },
  async read() {
    const iterator = provider()[Symbol.asyncIterator]();
    let received = 0;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return received;
      if (next.value.type === "text_delta") received++;
    }
  },
  handoff: twoStage((item) => item),
  record: twoStage((item) => ({
    type: "event",
    record: record({ type: "model.text_delta", callId: "c", text: item.text }),
  })),
  tinyagents: (() => {
    const run = createStream({ deltas, counters: newCounters() });
    return async () => (await run()).received;
  })(),
  sqlite: (() => {
    const run = createSqliteStream({ deltas, counters: newCounters() });
    return async () => (await run()).received;
  })(),
  "agent.stream": (() => {
    const model = scriptedModel({ deltas, counters: newCounters() });
    const agent = createAgent({ model });
    return async () => {
      let received = 0;
      for await (const item of agent.stream(PROMPT)) {
        if (item.type === "event" && item.record.event.type === "model.text_delta") received++;
      }
      return received;
    };
  })(),
};

if (typeof args.base === "string") {
  const h = await import(pathToFileURL(join(resolve(args.base), "packages/harness/dist/index.js")).href);
  // Own consumer function: the base build's records have other hidden classes than ours.
  const agent = h.createAgent({ model: scriptedModel({ deltas, counters: newCounters() }) });
  designs["agent.stream (base)"] = async () => {
    let received = 0;
    for await (const item of agent.stream(PROMPT)) {
      if (item.type === "event" && item.record.event.type === "model.text_delta") received++;
    }
    return received;
  };
  // The sqlite row on the base build: the same CLI wiring (cli-wiring.mjs) with its modules.
  const hs = await import(
    pathToFileURL(join(resolve(args.base), "packages/harness/dist/sqlite/index.js")).href
  );
  const dir = mkdtempSync(join(tmpdir(), "tinyagents-w2-base-"));
  const store = hs.SqliteStore.open(join(dir, "store.sqlite"));
  process.once("exit", () => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const journal = new h.AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" });
  const journaled = h.createAgent({ model: scriptedModel({ deltas, counters: newCounters() }) });
  let baseRuns = 0;
  designs["sqlite (base)"] = async () => {
    const runId = `base-run-${++baseRuns}`;
    const events = new h.EventSink(runId);
    const obs = h.attachObservability(events, { journal, statusStore: store.statusStore });
    let received = 0;
    try {
      for await (const item of journaled.stream(PROMPT, { runId, events })) {
        if (item.type === "event" && item.record.event.type === "model.text_delta") received++;
      }
    } finally {
      await obs.close();
    }
    return received;
  };
}

const rates = Object.fromEntries(Object.keys(designs).map((name) => [name, []]));
for (let slice = -2; slice < slices; slice++) {
  for (const [name, run] of Object.entries(designs)) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    let runs = 0;
    while (performance.now() - start < 100) {
      const received = await run();
      if (received !== deltas) throw new Error(`${name}: ${received} deltas, expected ${deltas}`);
      runs++;
    }
    const used = process.cpuUsage(cpu);
    if (slice >= 0) rates[name].push((runs * deltas) / ((used.user + used.system) / 1e6));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(
  `W2 designs, ${deltas} deltas, ${slices} alternating slices, deltas per CPU-second (median), ratio to the floor`,
);
for (const [name, xs] of Object.entries(rates)) {
  const ratio = median(rates.floor.map((floor, i) => floor / xs[i]));
  console.log(`${name.padEnd(19)} ${(median(xs) / 1e6).toFixed(2).padStart(6)}M  ${ratio.toFixed(2)}x`);
}
