// Profiling aid (not part of the suite): what one in-flight W3 run holds, by object. Starts
// --runs concurrent 5-step runs whose model yields a turn per call (as W3 does), writes a heap
// snapshot once every run is past its fourth model call, another once they all finished and were
// dropped, and prints the difference per run: bytes and count by object type, then by type and
// the edge that holds it (e.g. `Generator.parameters_and_registers`: a suspended async frame).
// Heap snapshots count fewer bytes than `heapUsed` (W3's "live" figure): read the rows as shares.
// Usage: node --expose-gc bench/tools/heap-in-flight.mjs [--adapter tinyagents] [--runs 1000] [--top 30]
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { newCounters } from "../lib/script.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const args = parseArgs();
const adapter = await loadAdapter(args.adapter ?? "tinyagents");
const runs = intArg(args, "runs", 1000);
const top = intArg(args, "top", 30);
const counters = newCounters();
const run = adapter.createLoop({ steps: 5, yieldEachCall: true, counters });
for (let i = 0; i < 200; i++) await run();

const inFlightFile = join(tmpdir(), `heap-in-flight-${process.pid}.heapsnapshot`);
const idleFile = join(tmpdir(), `heap-idle-${process.pid}.heapsnapshot`);
const before = counters.model;
let all = [];
for (let i = 0; i < runs; i++) all.push(run());
await new Promise((resolve) => {
  const check = () => {
    if (counters.model - before < 4 * runs) return setImmediate(check);
    writeHeapSnapshot(inFlightFile);
    resolve();
  };
  setImmediate(check);
});
await Promise.all(all);
all = undefined;
globalThis.gc();
writeHeapSnapshot(idleFile);

/** Per node: [type, name, self size, holder label]; holder = first edge that points at it. */
function summarize(file) {
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, strings } = snap;
  const ti = meta.node_fields.indexOf("type");
  const ni = meta.node_fields.indexOf("name");
  const si = meta.node_fields.indexOf("self_size");
  const ci = meta.node_fields.indexOf("edge_count");
  const eti = meta.edge_fields.indexOf("type");
  const eni = meta.edge_fields.indexOf("name_or_index");
  const eto = meta.edge_fields.indexOf("to_node");
  const label = (i) => {
    const type = nodeTypes[nodes[i + ti]];
    return type === "object" || type === "closure"
      ? `${type} ${strings[nodes[i + ni]] || "(anonymous)"}`
      : `(${type})`;
  };
  const holder = new Map();
  for (let i = 0, e = 0; i < nodes.length; i += nf) {
    for (let c = 0; c < nodes[i + ci]; c++, e += ef) {
      const to = edges[e + eto];
      if (holder.has(to)) continue;
      const kind = edgeTypes[edges[e + eti]];
      const name = kind === "element" || kind === "hidden" ? "#" : strings[edges[e + eni]];
      holder.set(to, `${strings[nodes[i + ni]].slice(0, 30)}.${String(name).slice(0, 30)}`);
    }
  }
  const byType = new Map();
  const byHolder = new Map();
  const add = (map, key, size) => {
    const row = map.get(key) ?? [0, 0];
    row[0]++;
    row[1] += size;
    map.set(key, row);
  };
  for (let i = 0; i < nodes.length; i += nf) {
    const size = nodes[i + si];
    add(byType, label(i), size);
    add(byHolder, `${label(i)} <- ${holder.get(i) ?? "?"}`, size);
  }
  return { byType, byHolder };
}

const inFlight = summarize(inFlightFile);
const idle = summarize(idleFile);
rmSync(inFlightFile);
rmSync(idleFile);
function print(title, a, b) {
  const rows = [...a]
    .map(([key, [count, size]]) => [
      key,
      (count - (b.get(key)?.[0] ?? 0)) / runs,
      (size - (b.get(key)?.[1] ?? 0)) / runs,
    ])
    .filter((row) => row[2] >= 4)
    .sort((x, y) => y[2] - x[2]);
  const total = rows.reduce((sum, row) => sum + row[2], 0);
  console.log(`\n${title} (${total.toFixed(0)} B per in-flight run in these rows)`);
  for (const [key, count, size] of rows.slice(0, top))
    console.log(`${size.toFixed(0).padStart(6)} B ${count.toFixed(2).padStart(6)} x  ${key}`);
}
console.log(`${adapter.info.name}: ${runs} runs in flight, heap snapshot difference per run`);
print("by type", inFlight.byType, idle.byType);
print("by type and holder", inFlight.byHolder, idle.byHolder);
