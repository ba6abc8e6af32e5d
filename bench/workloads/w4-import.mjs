// W4 cold start, in this (fresh) process: the time to import one package, or a package and zod
// (the first lines of a user's program). Resolution starts from bench/, so competitors come from
// bench/node_modules and @tinyagents/harness from the workspace root (its built dist).
// Usage: node workloads/w4-import.mjs --module SPECIFIER[,SPECIFIER...]
import { parseArgs } from "../lib/args.mjs";
import { emit } from "../lib/child.mjs";

const { module: list } = parseArgs();
const specifiers = list.split(",");
const start = performance.now();
let exports = 0;
for (const specifier of specifiers) exports += Object.keys(await import(specifier)).length;
const importMs = performance.now() - start;
emit({ module: list, importMs, exports });
