import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as ts from "typescript";
import { describe, expect, it } from "vitest";
import { importGraph } from "./source-graph.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const src = path.join(repo, "packages/harness/src");
const contracts = path.join(src, "contracts");
const rel = (file: string) => path.relative(src, file).split(path.sep).join("/");

/**
 * The run plumbing a contract may name (type-only): the run context and config, costs, statuses.
 * Those files sit below the contracts: they import no feature folder.
 */
const PLUMBING = ["context/run-context.ts", "context/run-config.ts", "cost/cost.ts", "status/run-status.ts"];
/**
 * The loop and its features: they depend on the contracts, never the reverse. (steering/ and tool/
 * also hold plumbing: steering commands and handles, JSON equality; those may sit below.)
 */
const FEATURES = [
  "agent-loop/",
  "cache/",
  "middleware/",
  "runtime/",
  "structured/",
  "subagent/",
  "steering/paused-run",
  "steering/apply-steering",
  "tool/tool",
  "tool/define-tool",
];

function contractFiles(): string[] {
  return fs
    .readdirSync(contracts)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(contracts, f));
}

describe("layering: harness contracts", () => {
  it("contracts/ holds only types: no runtime statement, only type-only imports and exports", () => {
    const offenders: string[] = [];
    for (const file of contractFiles()) {
      const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        const typeOnly =
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly === true) ||
          (ts.isExportDeclaration(statement) && statement.isTypeOnly);
        if (!typeOnly) offenders.push(`${rel(file)}: ${statement.getText(source).split("\n")[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("contracts/ imports only other contracts and the run plumbing, and the plumbing imports no feature", () => {
    const graph = importGraph([path.join(repo, "packages")]);
    const bad: string[] = [];
    for (const file of contractFiles()) {
      for (const target of graph.get(file) ?? []) {
        const to = rel(target);
        if (!to.startsWith("contracts/") && !PLUMBING.includes(to)) bad.push(`${rel(file)} -> ${to}`);
      }
    }
    // Everything the plumbing reaches, transitively, stays out of the feature folders.
    const seen = new Set<string>();
    const queue = PLUMBING.map((p) => path.join(src, p));
    while (queue.length > 0) {
      const file = queue.pop() as string;
      for (const target of graph.get(file) ?? []) {
        if (seen.has(target)) continue;
        seen.add(target);
        queue.push(target);
        const to = rel(target);
        if (FEATURES.some((feature) => to.startsWith(feature))) bad.push(`plumbing reaches ${to}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
