#!/usr/bin/env node
import { runDemo } from "./demo/run-demo.js";

// Until the full CLI lands, `tinyagents` runs the offline demo with an optional prompt.
const prompt = process.argv.slice(2).join(" ").trim() || "What is 19 + 23 + 100?";
runDemo(prompt).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
