// Profiling aid (issue 40, Postgres at S = 1): where a journaled run's client CPU goes. The same
// front-door run (tinyagents-postgres's wiring: attachObservability with a journal and a status
// store per run, postgres-wiring.mjs) over four backends, in ONE process, alternating rounds,
// CPU time of this process (user + system):
//   memory     the harness's in-memory append log and status store (the per-run pipeline alone);
//   instant    @tinyagents/postgres over a pool whose every query answers at once (the store's
//              own JavaScript: batching, statement parameters, tails; no driver, no I/O);
//   next-turn  the same pool answering one event-loop turn later (the wait path, still no I/O);
//   echo       the same, each query a real loopback round trip of 2.2 KB (about a commit) to a
//              trivial echo process: a wait for I/O without the driver;
//   postgres   the store on the real server (adds pg, the socket and the round trip);
// plus the storage floor (postgres-floor) for scale. postgres minus next-turn is what the driver
// and the round trip cost this process; compare it with echo and with the floor's whole run.
// Usage: node bench/tools/postgres-split.mjs [--steps 1] [--rounds 15] [--round-ms 150] [--warmup-ms 3000]
// Starts its own throwaway server (startTestPostgres) unless TINYAGENTS_BENCH_POSTGRES_URL is set.
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { AppendLogEventJournal, InMemoryAppendLog, InMemoryHarnessStatusStore } from "@tinyagents/harness";
import { PostgresStore } from "@tinyagents/postgres";
import { loadAdapter } from "../adapters/index.mjs";
import { observedRun, openPostgresStore } from "../adapters/postgres-wiring.mjs";
import { scriptedAgent, scriptedModel } from "../adapters/tinyagents.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { ensureBenchPostgres } from "../lib/bench-postgres.mjs";
import { expectEqual } from "../lib/child.mjs";
import { finalText, newCounters, PROMPT } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
const steps = intArg(args, "steps", 1);
const rounds = intArg(args, "rounds", 15);
const roundMs = intArg(args, "round-ms", 150);
const warmupMs = intArg(args, "warmup-ms", 3000);
const expected = finalText(steps);

const server = await ensureBenchPostgres();

/** A stand-in for pg.Pool: every query succeeds with no rows, at once or one turn later. */
function fakePool(answer) {
  const result = { rows: [], rowCount: 0 };
  return {
    options: { database: "fake" },
    query: answer === "now" ? async () => result : () => new Promise((r) => setImmediate(() => r(result))),
    on() {},
    end: async () => undefined,
  };
}

/** A pool whose every query is one round trip of `bytes` to an echo process on loopback. */
async function echoPool(bytes) {
  const echo = spawn(
    process.execPath,
    [
      "-e",
      'const s = require("node:net").createServer((c) => { c.setNoDelay(true); c.on("data", (d) => c.write(d)); });' +
        's.listen(0, "127.0.0.1", () => console.log(s.address().port));',
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  process.once("exit", () => echo.kill());
  const port = await new Promise((resolve) => echo.stdout.once("data", (d) => resolve(Number(String(d)))));
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  await new Promise((resolve) => socket.once("connect", resolve));
  const message = Buffer.alloc(bytes, 97);
  const result = { rows: [], rowCount: 0 };
  let received = 0;
  let answer;
  socket.on("data", (chunk) => {
    received += chunk.length;
    if (received < bytes) return;
    received = 0;
    answer(result);
  });
  return {
    options: { database: "echo" },
    query: () =>
      new Promise((resolve) => {
        answer = resolve;
        socket.write(message);
      }),
    on() {},
    end: async () => socket.destroy(),
  };
}

async function overFakePool(answer) {
  const pool = answer === "echo" ? await echoPool(2230) : fakePool(answer);
  const store = await PostgresStore.open({
    pool,
    schema: `fake_${answer.replace(" ", "_")}`,
    migrate: false,
  });
  return { journal: new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" }), store };
}

const wirings = {
  memory: {
    journal: new AppendLogEventJournal(new InMemoryAppendLog(), { streamPrefix: "journal-" }),
    store: { statusStore: new InMemoryHarnessStatusStore() },
  },
  instant: await overFakePool("now"),
  "next-turn": await overFakePool("next turn"),
  echo: await overFakePool("echo"),
  postgres: await openPostgresStore(),
};
const loops = Object.entries(wirings).map(([name, cli]) => {
  const counters = newCounters();
  const agent = scriptedAgent(scriptedModel({ steps, counters }), counters, steps);
  const run = observedRun(cli, (runId, events) => agent.run(PROMPT, { runId, events }));
  return { name, run: async () => (await run()).text, samples: [] };
});
const floor = await loadAdapter("postgres-floor");
const floorRun = floor.createLoop({ steps, counters: newCounters() });
loops.push({ name: "postgres-floor", run: async () => floor.loopText(await floorRun()), samples: [] });

function cpuUs() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function timed(loop, ms) {
  const wallStart = performance.now();
  const start = cpuUs();
  let runs = 0;
  while (performance.now() - wallStart < ms) {
    expectEqual(`${loop.name} S=${steps} final text`, await loop.run(), expected);
    runs++;
  }
  return (cpuUs() - start) / runs;
}

for (const loop of loops) await timed(loop, warmupMs);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? loops : [...loops].reverse();
  for (const loop of order) loop.samples.push(await timed(loop, roundMs));
}
console.log(
  JSON.stringify({
    steps,
    rounds,
    clock: "cpu, this process",
    clientUsPerRun: Object.fromEntries(loops.map((l) => [l.name, Math.round(median(l.samples) * 10) / 10])),
  }),
);
await server?.stop();
process.exit(0);
