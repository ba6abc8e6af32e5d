// Import time of one module resolved from two (or more) directories, in alternating fresh
// processes: A, B, A, B, ... so both see the same machine load. Prints the median [min-max] of the
// wall time and of the process CPU time spent in `await import(module)`.
// Usage: node bench/tools/import-ab.mjs [--runs 30] [--module @tinyagents/harness] DIR_A DIR_B ...
// Each DIR resolves the module the way a program there would (its node_modules, upwards); e.g. a
// copy of a package's older dist under /tmp/a/node_modules/@tinyagents/harness/, its dependencies
// symlinked beside it.
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values, positionals: dirs } = parseArgs({
  options: {
    runs: { type: "string", default: "30" },
    module: { type: "string", default: "@tinyagents/harness" },
  },
  allowPositionals: true,
});
if (dirs.length === 0)
  throw new Error("usage: import-ab.mjs [--runs N] [--module SPECIFIER] DIR_A DIR_B ...");
// Evaluated as an ES module with the directory as cwd, so the bare specifier resolves from there.
const probe = `const c0 = process.cpuUsage(); const t0 = performance.now();
await import(${JSON.stringify(values.module)});
const wall = performance.now() - t0; const c = process.cpuUsage(c0);
console.log(JSON.stringify({ wall, cpu: (c.user + c.system) / 1000 }));`;
const results = dirs.map(() => ({ wall: [], cpu: [] }));
for (let i = 0; i < Number(values.runs); i++) {
  dirs.forEach((cwd, j) => {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], {
      cwd,
      encoding: "utf8",
    });
    const { wall, cpu } = JSON.parse(out);
    results[j].wall.push(wall);
    results[j].cpu.push(cpu);
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const show = (xs) =>
  `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}] ms`;
console.log(`import ${values.module}, ${values.runs} alternating processes per directory`);
for (const [j, dir] of dirs.entries()) {
  console.log(`${dir}: wall ${show(results[j].wall)}, CPU ${show(results[j].cpu)}`);
}
