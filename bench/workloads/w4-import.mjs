// W4 cold start, in this (fresh) process: the time to import one package (the first line of a
// user's program). Resolution starts from bench/, so competitors come from bench/node_modules
// and @tinyagents/harness from the workspace root (its built dist).
// Usage: node workloads/w4-import.mjs --module SPECIFIER
import { parseArgs } from "../lib/args.mjs";
import { emit } from "../lib/child.mjs";

const { module: specifier } = parseArgs();
const start = performance.now();
const exports = await import(specifier);
const importMs = performance.now() - start;
emit({ module: specifier, importMs, exports: Object.keys(exports).length });
