// What the figures were measured on: machine, load, Node, and the exact package versions.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";

function cpuModel() {
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("model name"));
    if (line !== undefined) return line.slice(line.indexOf(":") + 1).trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? "unknown";
}

function nproc() {
  try {
    return Number(execFileSync("nproc", { encoding: "utf8" }).trim());
  } catch {
    return cpus().length;
  }
}

function commit(repoDir) {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoDir, encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

export function versionOf(dir) {
  const file = join(dir, "package.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : undefined;
}

/** Machine, Node and package versions; `repoDir` is the workspace root, `benchDir` bench/. */
export function describeEnvironment(repoDir, benchDir) {
  const packages = {};
  for (const name of ["@tinyagents/harness", "@tinyagents/inference"]) {
    packages[name] = versionOf(join(repoDir, "packages", name.split("/")[1]));
  }
  for (const name of [
    "ai",
    "langchain",
    "@langchain/core",
    "@langchain/langgraph",
    "@openai/agents",
    "zod",
  ]) {
    packages[name] = versionOf(join(benchDir, "node_modules", name));
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    nproc: nproc(),
    cpu: cpuModel(),
    loadavg: loadavg().map((l) => Number(l.toFixed(2))),
    commit: commit(repoDir),
    packages,
  };
}
