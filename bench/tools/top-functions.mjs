// Summarize a V8 .cpuprofile: self time by function (top N), as a share of all samples.
// Usage: node bench/tools/top-functions.mjs FILE.cpuprofile [N]
import { readFileSync } from "node:fs";

const [file, n = "25"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
for (const id of profile.samples) {
  const frame = byId.get(id).callFrame;
  const url = frame.url.replace(/^.*\/(packages|node_modules)\//, "$1/");
  const key = `${frame.functionName || "(anonymous)"} ${url}:${frame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + 1);
}
const total = profile.samples.length;
for (const [key, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`${((count / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
