// Postgres adapters' W1 in one process, alternating rounds, timed in CPU time of BOTH sides:
// this process (user + system) plus every process of the Postgres server (its backends,
// walwriter, ...; read from /proc). On a loaded shared machine wall time mostly measures the
// scheduler, and this process's CPU alone leaves out the server's share of each commit; their
// sum is what a commit costs the machine. Linux only (/proc). Prints one JSON line like
// workloads/w1-alternating.mjs: CPU µs per step per adapter (median of the rounds) and the
// median per-round ratio of each adapter to the first one; `clientUsPerStep` is this process's share.
// Usage: node bench/tools/postgres-cpu.mjs --adapters postgres-floor,tinyagents-postgres --steps 1
//        [--rounds 9] [--round-ms 300] [--warmup-ms 500]
// Starts its own throwaway server (startTestPostgres) unless TINYAGENTS_BENCH_POSTGRES_URL is set.
import { readdirSync, readFileSync } from "node:fs";
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { ensureBenchPostgres } from "../lib/bench-postgres.mjs";
import { expectEqual } from "../lib/child.mjs";
import { finalText, newCounters } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
const names = String(args.adapters).split(",");
const steps = intArg(args, "steps");
const rounds = intArg(args, "rounds", 9);
const roundMs = intArg(args, "round-ms", 300);
const warmupMs = intArg(args, "warmup-ms", 500);
const expected = finalText(steps);

const server = await ensureBenchPostgres();
const port = new URL(process.env.TINYAGENTS_BENCH_POSTGRES_URL).port;
const TICK_US = 1e6 / 100; // USER_HZ

/** The server's processes: the postmaster listening on `port` and its children. */
function serverPids() {
  const stats = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      stats.push({ pid: entry, cmd: readFileSync(`/proc/${entry}/cmdline`, "utf8"), stat: procStat(entry) });
    } catch {
      // exited meanwhile
    }
  }
  const master = stats.find((s) => s.cmd.includes("postgres") && s.cmd.includes(`-p\0${port}\0`));
  if (master === undefined) throw new Error(`no Postgres server on port ${port} found in /proc`);
  return stats.filter((s) => s.pid === master.pid || s.stat.ppid === master.pid).map((s) => s.pid);
}

function procStat(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { ppid: fields[1], ticks: Number(fields[11]) + Number(fields[12]) };
}

/** CPU µs used so far by the server's processes (re-listed: backends come and go). */
function serverUs() {
  let ticks = 0;
  for (const pid of serverPids()) {
    try {
      ticks += procStat(pid).ticks;
    } catch {
      // exited meanwhile
    }
  }
  return ticks * TICK_US;
}

function clientUs() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const loops = [];
for (const name of names) {
  const adapter = await loadAdapter(name);
  loops.push({
    name,
    adapter,
    run: adapter.createLoop({ steps, counters: newCounters() }),
    samples: [],
    client: [],
  });
}

async function timed(loop, ms) {
  const wallStart = performance.now();
  const client = clientUs();
  const server = serverUs();
  let runs = 0;
  while (performance.now() - wallStart < ms) {
    expectEqual(`${loop.name} S=${steps} final text`, loop.adapter.loopText(await loop.run()), expected);
    runs++;
  }
  await loop.adapter.settle?.();
  const clientPerStep = (clientUs() - client) / (runs * steps);
  loop.client.push(clientPerStep);
  return clientPerStep + (serverUs() - server) / (runs * steps);
}

for (const loop of loops) await timed(loop, warmupMs);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? loops : [...loops].reverse();
  for (const loop of order) loop.samples.push(await timed(loop, roundMs));
}
const base = loops[0];
console.log(
  JSON.stringify({
    steps,
    rounds,
    clock: "cpu, this process + the Postgres server",
    usPerStep: Object.fromEntries(loops.map((l) => [l.name, Math.round(median(l.samples))])),
    clientUsPerStep: Object.fromEntries(loops.map((l) => [l.name, Math.round(median(l.client))])),
    ratios: Object.fromEntries(
      loops
        .slice(1)
        .map((l) => [`${l.name}/${base.name}`, median(l.samples.map((x, i) => x / base.samples[i]))]),
    ),
  }),
);
await server?.stop();
process.exit(0);
